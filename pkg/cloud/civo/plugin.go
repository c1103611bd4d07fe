package civo

import (
	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/plugin"
)

// PluginNodePool is the Civo node pool clusterplane's plugin manages itself through Civo's API
// (iac/pulumi/civokubernetesnodepool/poolresource), because the only Pulumi Civo provider crashes
// on a node-count update.
const PluginNodePool = plugin.Package + ":civo:NodePool"

// The plugin's configuration the node pool reads (clusterplane:config:<name>); absent, the token
// and API URL fall back to TokenEnv and APIURLEnv under Env.Resolve's rule.
const (
	PluginToken  = "civoToken"
	PluginAPIURL = "civoApiUrl"
	PluginRegion = "civoRegion"
)

// PluginResources is the node pool the plugin manages: its properties are the Civo node-pool
// kind's spec fields, which document them.
func (Driver) PluginResources() []cloud.PluginResource {
	return []cloud.PluginResource{{
		Token: PluginNodePool,
		Description: "A Civo Kubernetes node pool, managed by this plugin through Civo's API: node count, labels and " +
			"taints change in place (clearing them included); name, cluster, region, size and public IPs replace the " +
			"pool. The clusterplane:civo:KubernetesNodePool component creates it; its properties are that component's " +
			"fields, documented there.",
		Inputs: map[string]string{
			"nodePoolName":     kindfield.SpecNodePoolName,
			"clusterId":        kindfield.SpecCluster,
			"region":           kindfield.SpecRegion,
			"size":             kindfield.SpecSize,
			"nodeCount":        kindfield.SpecNodeCount,
			"autoScale":        kindfield.SpecAutoScale,
			"labels":           kindfield.SpecLabels,
			"taints":           kindfield.SpecTaints,
			"publicIpNodePool": kindfield.SpecPublicIpNodePool,
		},
		RequiredInputs: []string{"clusterId", "nodePoolName", "size"},
		Outputs:        map[string]string{"instanceNames": kindfield.StackOutputsInstanceNames},
		Settings: []cloud.PluginSetting{
			{Name: PluginToken, Secret: true, Description: "Civo API token of the Civo node pools. " +
				"Default: the " + TokenEnv + " environment variable."},
			{Name: PluginAPIURL, Description: "Civo API URL of the Civo node pools. " +
				"Default: the " + APIURLEnv + " environment variable, else " + Env.API + "."},
			{Name: PluginRegion, Description: "Region of a Civo node pool that sets none, e.g. fra1."},
		},
		SettingsUse: "Civo node pools read the Civo API settings.",
	}}
}
