// Package provider holds what the clouds' providers a stack creates have in common as Pulumi
// plugins: the environment they run in. Who the clouds are and which token goes to which API is
// pkg/cloud's (each cloud's driver). The providers themselves live under their cloud's driver,
// pkg/cloud/<cloud>/pulumiprovider, one package each, so that a program links only its own
// cloud's SDK.
package provider

import (
	"maps"

	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
)

// PluginEnv is the environment clusterplane runs the provider plugins in, besides its own: what
// each cloud's driver asks for its plugin (cloud.Driver.PluginEnv; DigitalOcean's retries off, so
// that pkg/deploy alone asks again, after looking that a failed create left nothing behind).
var PluginEnv = func() map[string]string {
	out := map[string]string{}
	for _, d := range clouds.All() {
		maps.Copy(out, d.PluginEnv())
	}
	return out
}()
