// Package provider holds what the Civo and DigitalOcean providers a stack creates have in common
// as Pulumi plugins: the environment they run in. Who the clouds are and which token goes to which
// API is pkg/cloud/cloudapi's. The providers themselves live in civoprovider and
// digitaloceanprovider, one package per cloud, so that a program links only its own cloud's SDK.
package provider

// PluginEnv is the environment clusterplane runs the provider plugins in, besides its own.
//
// DIGITALOCEAN_HTTP_RETRY_MAX=0 turns the DigitalOcean plugin's own retries off: its HTTP client
// (godo over go-retryablehttp, terraform-provider-digitalocean's config.go, http_retry_max 4 by
// default) asks again after any 5xx, a POST included, so a create the cloud carried out but
// answered 500 for made up to five clusters of one name. pkg/deploy asks again instead, after
// looking that the failed attempt left nothing behind.
var PluginEnv = map[string]string{"DIGITALOCEAN_HTTP_RETRY_MAX": "0"}
