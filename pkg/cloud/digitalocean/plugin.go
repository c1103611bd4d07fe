package digitalocean

import "github.com/clusterplane/clusterplane/pkg/cloud"

// PluginResources: DigitalOcean's provider serves every resource its kinds register.
func (Driver) PluginResources() []cloud.PluginResource { return nil }
