// Package civo is what Civo is (cloudfacts.Cloud): its ID, environment, provider config, kinds,
// token and tag rules, provider plugin and the custom resource clusterplane's plugin manages for
// it. What Civo does (its API's client, lists, pool moves) is its driver's, pkg/cloud/civo, which
// embeds Facts.
package civo

import (
	"regexp"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/plugin"
)

// ID names Civo.
const ID cloudfacts.ID = "civo"

// Facts are what Civo is.
type Facts struct{}

var _ cloudfacts.Cloud = Facts{}

// ID is Civo's.
func (Facts) ID() cloudfacts.ID { return ID }

// The environment variables an empty provider config's token and API URL fall back to, as the
// Civo provider plugin's own do.
const (
	TokenEnv  = "CIVO_TOKEN"
	APIURLEnv = "CIVO_API_URL"
)

// Env is Civo's environment: its name, TokenEnv and APIURLEnv, and its own API (a list of
// regions answers a probe cheaply). Resolve on it decides where a Civo token may go.
var Env = cloudfacts.Env{Name: "Civo", TokenEnv: TokenEnv, URLEnv: APIURLEnv, API: "https://api.civo.com",
	Probe: "/v2/regions"}

// Env is Civo's environment: CIVO_TOKEN, CIVO_API_URL and api.civo.com.
func (Facts) Env() cloudfacts.Env { return Env }

// ProviderConfig is the Civo kinds' provider config.
func (Facts) ProviderConfig() cloudfacts.ProviderConfig {
	return cloudfacts.ProviderConfig{Message: (&civov1.CivoProviderConfig{}).ProtoReflect().Descriptor().FullName(),
		Token: civov1.CivoProviderConfigFieldApiToken, URL: civov1.CivoProviderConfigFieldApiUrl}
}

// PerPage is Civo's largest page.
const PerPage = 100

// Requests: Civo states no rate limit, and no estimate counts its pages.
func (Facts) Requests() cloudfacts.Requests { return cloudfacts.Requests{ClustersPerPage: PerPage} }

// PoolLabel is the node label Civo puts on every node of a pool: the pool's id
// (kubernetes/autoscaler, cluster-autoscaler/cloudprovider/civo/civo_node_group.go,
// TemplateNodeInfo, sets that label to the node group's id, which is the pool's id).
const PoolLabel = "kubernetes.civo.com/civo-node-pool"

// PoolSelector selects a pool's nodes by its id (kubernetes.civo.com/civo-node-pool=<id>): Civo
// pools have no name but their id.
func (Facts) PoolSelector(_, id string) (map[string]string, error) {
	if id == "" {
		return nil, errors.New("a Civo pool's nodes are found by the pool's id, and it has none")
	}
	return map[string]string{PoolLabel: id}, nil
}

// ProviderSDK is the Go SDK module of the Pulumi provider plugin the kinds' programs use.
func (Facts) ProviderSDK() string { return "github.com/pulumi/pulumi-civo/sdk/v2" }

// PluginEnv: the Civo plugin runs in clusterplane's environment as it is.
func (Facts) PluginEnv() map[string]string { return nil }

// Credentials are the other variables the provider reads a credential from (terraform-provider-civo v1.1.4).
func (Facts) Credentials() []string { return []string{"CIVO_CREDENTIAL_FILE"} }

// ProviderSDKVersion is go.mod's version of ProviderSDK.
func (Facts) ProviderSDKVersion() string { return "2.4.8" }

// The kinds as manifests write them.
const (
	ClusterKind = "CivoKubernetesCluster"
	PoolKind    = "CivoKubernetesNodePool"
	APIVersion  = "civo.clusterplane.dev/v1"
)

// Kinds are Civo's kinds.
func (Facts) Kinds() cloudfacts.Kinds {
	return cloudfacts.Kinds{Cluster: ClusterKind, Pool: PoolKind, APIVersion: APIVersion, PoolRegion: true}
}

// TokenShape: Civo publishes no shape of its API keys, so none is looked for.
func (Facts) TokenShape() *regexp.Regexp { return nil }

// TagsIgnoreCase: the Civo kinds send no tags to Civo.
func (Facts) TagsIgnoreCase() bool { return false }

// Distribution: a Civo cluster runs k3s, or Talos when its cluster_type says talos; Civo lists
// each version for one of the two.
func (Facts) Distribution(clusterType string) string {
	if clusterType == "talos" {
		return "talos"
	}
	return "k3s"
}

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
func (Facts) PluginResources() []cloudfacts.PluginResource {
	return []cloudfacts.PluginResource{{
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
		Settings: []cloudfacts.PluginSetting{
			{Name: PluginToken, Secret: true, Description: "Civo API token of the Civo node pools. " +
				"Default: the " + TokenEnv + " environment variable."},
			{Name: PluginAPIURL, Description: "Civo API URL of the Civo node pools. " +
				"Default: the " + APIURLEnv + " environment variable, else " + Env.API + "."},
			{Name: PluginRegion, Description: "Region of a Civo node pool that sets none, e.g. fra1."},
		},
		SettingsUse: "Civo node pools read the Civo API settings.",
	}}
}
