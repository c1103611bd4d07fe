package pulumischema_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"

	"github.com/clusterplane/clusterplane/pkg/pulumi/pulumischema"
)

func generated(t *testing.T) *pulumischema.Package {
	t.Helper()
	data, err := pulumischema.Generate(registry.Kinds().Schema())
	if err != nil {
		t.Fatal(err)
	}
	pkg := &pulumischema.Package{}
	if err := json.Unmarshal(data, pkg); err != nil {
		t.Fatal(err)
	}
	return pkg
}

func TestTheSchemaSaysWhatTheProtosSay(t *testing.T) {
	pkg := generated(t)
	const (
		doCluster   = "clusterplane:digitalocean:KubernetesCluster"
		doPool      = "clusterplane:digitalocean:KubernetesNodePool"
		civoCluster = "clusterplane:civo:KubernetesCluster"
		civoPool    = "clusterplane:civo:KubernetesNodePool"
	)
	cases := []struct {
		name string
		ok   func() bool
	}{
		{"every kind of the list is a component and every custom of a kind a custom resource, nothing else", func() bool {
			// The resources are the kinds' components plus the customs the plugin manages for
			// them: today four kinds and one custom, the Civo node pool (clusterplane:civo:NodePool).
			kinds := registry.Kinds()
			for _, token := range []string{doCluster, doPool, civoCluster, civoPool} {
				if k, ok := kinds.ByName(strings.ReplaceAll(strings.TrimPrefix(token, "clusterplane:"), ":", "")); !ok || k.Component.Token != token {
					return false
				}
			}
			for _, k := range kinds {
				if r := pkg.Resources[k.Component.Token]; r == nil || !r.IsComponent {
					return false
				}
			}
			for _, c := range kinds.Customs() {
				if r := pkg.Resources[c.Token]; r == nil || r.IsComponent {
					return false
				}
			}
			return len(pkg.Resources) == len(kinds)+len(kinds.Customs())
		}},
		{"the Civo node pool is a custom resource with the manifest's field docs and a secret token setting", func() bool {
			r := pkg.Resources[civo.PluginNodePool]
			return r != nil && !r.IsComponent &&
				r.InputProperties["nodeCount"].Description == pkg.Resources[civoPool].InputProperties["nodeCount"].Description &&
				r.InputProperties["clusterId"].Type == "string" && r.Properties["instanceNames"] != nil &&
				pkg.Config.Variables["civoToken"].Secret && pkg.Provider.InputProperties["civoToken"].Secret
		}},
		{"inputs are the spec's fields in camelCase plus metadata and providerConfig", func() bool {
			in := pkg.Resources[doPool].InputProperties
			return in["nodePoolName"] != nil && in["autoScale"] != nil && in["metadata"] != nil &&
				in["providerConfig"] != nil && in["node_pool_name"] == nil && in["spec"] == nil
		}},
		{"required inputs are the fields with buf.validate required", func() bool {
			return slices.Equal(pkg.Resources[doPool].RequiredInputs, []string{"cluster", "nodePoolName", "size"})
		}},
		{"the API token is secret", func() bool {
			return pkg.Types["clusterplane:digitalocean:DigitalOceanProviderConfig"].Properties["apiToken"].Secret &&
				pkg.Types["clusterplane:civo:CivoProviderConfig"].Properties["apiToken"].Secret &&
				!pkg.Types["clusterplane:digitalocean:DigitalOceanProviderConfig"].Properties["apiUrl"].Secret
		}},
		{"kubeconfigs are secret outputs", func() bool {
			return pkg.Resources[doCluster].Properties["kubeconfig"].Secret &&
				pkg.Resources[civoCluster].Properties["kubeconfigB64"].Secret &&
				!pkg.Resources[doCluster].Properties["kubeconfigExpiresAt"].Secret
		}},
		{"outputs are the stack outputs in camelCase", func() bool {
			return slices.Equal(pkg.Resources[doPool].Required, []string{"nodeIds", "nodeNames", "nodePoolId"})
		}},
		{"enums list the values a manifest may write, with their docs", func() bool {
			e := pkg.Types["clusterplane:shared:TaintEffect"].Enum
			typ := pkg.Types["clusterplane:civo:CivoKubernetesClusterType"].Enum
			return len(e) == 3 && e[0].Value == "NoSchedule" && typ[0].Value == "k3s" && strings.HasPrefix(typ[0].Description, "Lightweight k3s")
		}},
		{"an enum field refers to its enum type", func() bool {
			return pkg.Resources[civoCluster].InputProperties["clusterType"].Ref == "#/types/clusterplane:civo:CivoKubernetesClusterType"
		}},
		{"a region is a string, so that a region the cloud opens after the release can be named", func() bool {
			region := pkg.Resources[doCluster].InputProperties["region"]
			return region.Type == "string" && region.Ref == "" && pkg.Resources[civoCluster].InputProperties["region"].Type == "string"
		}},
		{"descriptions carry the comments and the rules in words", func() bool {
			d := pkg.Resources[doPool].InputProperties["maxNodes"].Description
			return len(d) > 0 && strings.Contains(d, "Upper bound for the autoscaler") && strings.Contains(d, "Rules:") &&
				strings.Contains(d, "max_nodes must be at least min_nodes when auto_scale is true")
		}},
		{"the Go SDK lives in this module", func() bool {
			g, _ := pkg.Language["go"].(map[string]any)
			return g["importBasePath"] == "github.com/clusterplane/clusterplane/sdk/go/clusterplane"
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.ok() {
				t.Error("it does not")
			}
		})
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	a, err := pulumischema.Generate(registry.Kinds().Schema())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := pulumischema.Generate(registry.Kinds().Schema())
	if string(a) != string(b) {
		t.Error("two runs gave different schemas")
	}
}
