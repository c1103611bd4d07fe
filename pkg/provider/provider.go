// Package provider holds what the Civo and DigitalOcean providers a stack creates have in common:
// the environment variables empty provider-config fields fall back to. The providers themselves
// live in civoprovider and digitaloceanprovider, one package per cloud, so that a program links
// only its own cloud's SDK.
package provider

import "os"

// Environment variables that empty provider-config fields fall back to.
const (
	CivoTokenEnv          = "CIVO_TOKEN"
	CivoAPIURLEnv         = "CIVO_API_URL"
	DigitalOceanTokenEnv  = "DIGITALOCEAN_TOKEN"
	DigitalOceanAPIURLEnv = "DIGITALOCEAN_API_URL"
)

// Setting returns value, or the environment variable env when value is empty.
func Setting(value, env string) string {
	if value != "" {
		return value
	}
	return os.Getenv(env)
}
