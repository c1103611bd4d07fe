package civo

import civofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/civo"

// The node pool clusterplane's plugin manages itself and the plugin's configuration it reads, as
// Civo's facts name them (civofacts.PluginResources).
const (
	PluginNodePool = civofacts.PluginNodePool
	PluginToken    = civofacts.PluginToken
	PluginAPIURL   = civofacts.PluginAPIURL
	PluginRegion   = civofacts.PluginRegion
)
