package civokubernetesclusterv1_test

import (
	"regexp"
	"strings"
	"testing"

	cluster "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/module"
	"github.com/clusterplane/clusterplane/internal/testing/providerschema"
	"github.com/clusterplane/clusterplane/internal/testing/spectest"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// validCivoKubernetesCluster is the smallest manifest that passes validation.
func validCivoKubernetesCluster() *cluster.CivoKubernetesCluster {
	return &cluster.CivoKubernetesCluster{
		ApiVersion: "civo.clusterplane.dev/v1",
		Kind:       "CivoKubernetesCluster",
		Metadata:   &sharedv1.CloudResourceMetadata{Name: "prod-fra1"},
		Spec: &cluster.CivoKubernetesClusterSpec{
			ClusterName:       "prod-fra1",
			Region:            "fra1",
			KubernetesVersion: "1.30.5-k3s1",
			Network:           sharedv1.StringValue("8f4a2c1e-0000-4000-8000-000000000001"),
			DefaultNodePool:   &cluster.CivoKubernetesClusterDefaultNodePool{Size: "g4s.kube.medium", NodeCount: 3},
		},
	}
}

func TestCivoKubernetesClusterAcceptsValidManifests(t *testing.T) {
	tests := []spectest.Acceptance[*cluster.CivoKubernetesCluster]{
		{Name: "a minimal k3s cluster with a literal network id is accepted", Mutate: func(*cluster.CivoKubernetesCluster) {}},
		{Name: "a cluster with every field set is accepted", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Metadata = &sharedv1.CloudResourceMetadata{
				Name: "prod-fra1", Id: "k8s-0042", Org: "acme", Env: "prod",
				Labels: map[string]string{"team": "platform"}, Annotations: map[string]string{"note": "any text"},
			}
			s := c.Spec
			s.ClusterType = cluster.CivoKubernetesClusterType_k3s
			s.Cni = cluster.CivoKubernetesClusterCni_cilium
			s.Network = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Env: "prod", Name: "prod-net", FieldPath: "status.outputs.network_id"})
			s.ApiServerAllowedCidrs = []string{"203.0.113.0/24", "198.51.100.7/32"}
			s.Applications = []string{"Traefik-v2-nodeport", "metrics-server", "postgresql:5GB"}
			s.Tags = []string{"team-platform", "cost-center:42"}
			s.DefaultNodePool = &cluster.CivoKubernetesClusterDefaultNodePool{
				Size:             "g4s.kube.large",
				NodeCount:        5,
				PublicIpNodePool: true,
			}
			c.Status = &cluster.CivoKubernetesClusterStatus{Outputs: &cluster.CivoKubernetesClusterStackOutputs{ClusterId: "abc"}}
		}},
		{Name: "a talos cluster with a talos version and flannel is accepted", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.ClusterType = cluster.CivoKubernetesClusterType_talos
			c.Spec.Cni = cluster.CivoKubernetesClusterCni_flannel
			c.Spec.KubernetesVersion = "talos-v1.5.0"
		}},
		{Name: "a talos cluster with the cni left unset is accepted", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.ClusterType = cluster.CivoKubernetesClusterType_talos
			c.Spec.KubernetesVersion = "talos-v1.7.6"
		}},
		{Name: "an existing firewall without allowed cidrs is accepted", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.Firewall = sharedv1.StringValue("5d7e9f10-2a3b-4c5d-8e6f-7a8b9c0d1e2f")
		}},
		{Name: "a network reference to another cluster stack by kind and name is accepted", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.Network = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Name: "prod-net"})
		}},
		{Name: "a default pool of exactly one node is accepted", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.DefaultNodePool.NodeCount = 1
		}},
		{Name: "a k3s version with a leading v is accepted, as Civo lists them", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.KubernetesVersion = "v1.30.5-k3s1"
		}},
		{Name: "a cluster name and metadata name of exactly 63 characters are accepted", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.ClusterName = strings.Repeat("a", 63)
			c.Metadata.Name = strings.Repeat("b", 63)
		}},
		{Name: "every Civo region is accepted", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.Region = "mum1"
		}},
		{Name: "a region Civo may open tomorrow is accepted: the cloud decides", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.Region = "xyz9" }},
	}
	spectest.AssertAcceptances(t, validCivoKubernetesCluster, tests, func(t *testing.T, c *cluster.CivoKubernetesCluster) {
		// What the module registers for a valid manifest, the pinned provider accepts.
		in := &cluster.CivoKubernetesClusterStackInput{Target: c}
		providerschema.AssertPlanConforms(t, func(ctx *pulumi.Context) error { return module.Resources(ctx, in) })
	})
}

func TestACivoClusterWithoutANetworkIsValidAsTheCivoCLIPlacesItInTheDefaultOne(t *testing.T) {
	c := validCivoKubernetesCluster()
	c.Spec.Network = nil
	if err := validation.Validate(c); err != nil {
		t.Errorf("Validate() = %v, want nil: the cluster joins the region's default network", err)
	}
}

func TestCivoKubernetesClusterRejectsEachBrokenRule(t *testing.T) {
	// The rules every kind shares come first, then this kind's own.
	tests := append(spectest.Envelope[*cluster.CivoKubernetesCluster]("civo.clusterplane.dev/v1", "CivoKubernetesCluster", "civo.clusterplane.dev/v2", "CivoKubernetesNodePool"), []spectest.Rejection[*cluster.CivoKubernetesCluster]{
		// Node limits: Kubernetes supports at most 5,000 nodes in a cluster.
		{Name: "a default pool of 5001 nodes is rejected: Kubernetes supports 5,000 nodes a cluster", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.DefaultNodePool.NodeCount = 5001 },
			Want: []spectest.Violation{{Field: "spec.default_node_pool.node_count", Rule: "int32.gte_lte"}}, Hint: "5000"},
		// Envelope.
		{Name: "a missing api_version is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.ApiVersion = "" },
			Want: []spectest.Violation{{Field: "api_version", Rule: "string.const"}}, Hint: ""},
		{Name: "an upper-case metadata.name is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Metadata.Name = "Prod-Fra1" },
			Want: []spectest.Violation{{Field: "metadata.name", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a metadata.name ending in a dash is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Metadata.Name = "prod-" },
			Want: []spectest.Violation{{Field: "metadata.name", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a metadata.name of 64 characters is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Metadata.Name = strings.Repeat("a", 64) },
			Want: []spectest.Violation{{Field: "metadata.name", Rule: "string.max_len"}}, Hint: ""},

		// cluster_name and region.
		{Name: "a cluster without cluster_name is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.ClusterName = "" },
			Want: []spectest.Violation{{Field: "spec.cluster_name", Rule: "required"}}, Hint: ""},
		{Name: "a cluster_name with an underscore is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.ClusterName = "prod_fra1" },
			Want: []spectest.Violation{{Field: "spec.cluster_name", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a cluster_name of 64 characters is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.ClusterName = strings.Repeat("a", 64) },
			Want: []spectest.Violation{{Field: "spec.cluster_name", Rule: "string.max_len"}}, Hint: ""},
		{Name: "an unspecified region is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.Region = "" },
			Want: []spectest.Violation{{Field: "spec.region", Rule: "required"}}, Hint: ""},
		{Name: "a region in capitals is rejected: manifests write region codes in lower case", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.Region = "FRA1" },
			Want: []spectest.Violation{{Field: "spec.region", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a region name with a space is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.Region = "fra 1" },
			Want: []spectest.Violation{{Field: "spec.region", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a region of more than eight characters is one error, in the region rule's words", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.Region = "frankfurt1" },
			Want: []spectest.Violation{{Field: "spec.region", Rule: "string.pattern"}}, Hint: "must be a region code"},

		// kubernetes_version, cluster_type and cni.
		{Name: "a cluster without kubernetes_version is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.KubernetesVersion = "" },
			Want: []spectest.Violation{{Field: "spec.kubernetes_version", Rule: "required"}}, Hint: ""},
		{Name: "a k3s version written with +k3s1 is rejected with a hint to use -k3s1", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.KubernetesVersion = "1.30.5+k3s1" },
			Want: []spectest.Violation{{Field: "spec.kubernetes_version", Rule: "kubernetes_version.no_plus"}}, Hint: "spec.kubernetesVersion: write the k3s suffix with a dash, e.g. 1.30.5-k3s1"},
		{Name: "a k3s cluster with a bare version is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.KubernetesVersion = "1.30.5" },
			Want: []spectest.Violation{{Field: "spec.kubernetes_version", Rule: "kubernetes_version.k3s_format"}}, Hint: "1.30.5-k3s1"},
		{Name: "an explicit k3s cluster with a talos version is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.ClusterType = cluster.CivoKubernetesClusterType_k3s
			c.Spec.KubernetesVersion = "talos-v1.5.0"
		}, Want: []spectest.Violation{{Field: "spec.kubernetes_version", Rule: "kubernetes_version.k3s_format"}}, Hint: ""},
		{Name: "a talos cluster with a k3s version is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.ClusterType = cluster.CivoKubernetesClusterType_talos },
			Want: []spectest.Violation{{Field: "spec.kubernetes_version", Rule: "kubernetes_version.talos_format"}}, Hint: "talos-v1.5.0"},
		{Name: "a talos version without the v is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.ClusterType = cluster.CivoKubernetesClusterType_talos
			c.Spec.KubernetesVersion = "talos-1.5.0"
		}, Want: []spectest.Violation{{Field: "spec.kubernetes_version", Rule: "kubernetes_version.talos_format"}}, Hint: ""},
		{Name: "an unknown cluster_type number is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.ClusterType = 7 },
			Want: []spectest.Violation{{Field: "spec.cluster_type", Rule: "enum.defined_only"}}, Hint: ""},
		{Name: "an unknown cni number is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.Cni = 7 },
			Want: []spectest.Violation{{Field: "spec.cni", Rule: "enum.defined_only"}}, Hint: ""},
		{Name: "a talos cluster with cilium is rejected with a hint to use flannel", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.ClusterType = cluster.CivoKubernetesClusterType_talos
			c.Spec.KubernetesVersion = "talos-v1.5.0"
			c.Spec.Cni = cluster.CivoKubernetesClusterCni_cilium
		}, Want: []spectest.Violation{{Field: "spec.cni", Rule: "cni.talos_flannel_only"}}, Hint: "use flannel"},

		// network and firewall (StringValueOrRef, ValueFromRef).
		{Name: "a network with neither value nor valueFrom is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.Network = &sharedv1.StringValueOrRef{} },
			Want: []spectest.Violation{{Field: "spec.network.literal_or_ref", Rule: "required"}}, Hint: ""},
		{Name: "a network with an empty literal value is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.Network = sharedv1.StringValue("") },
			Want: []spectest.Violation{{Field: "spec.network.value", Rule: "string.min_len"}}, Hint: ""},
		{Name: "a network reference without kind is rejected: the kind names the referenced stack", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.Network = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Name: "prod-fra1"})
		}, Want: []spectest.Violation{{Field: "spec.network", Rule: "network.value_from_kind"}}, Hint: "network.valueFrom.kind must be CivoKubernetesCluster"},
		{Name: "a network reference to another kind is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.Network = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "SomethingElse", Name: "prod-fra1"})
		}, Want: []spectest.Violation{{Field: "spec.network", Rule: "network.value_from_kind"}}, Hint: ""},
		{Name: "a network reference to an output the kind does not have is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.Network = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Name: "prod-fra1", FieldPath: "status.outputs.no_such_output"})
		}, Want: []spectest.Violation{{Field: "spec.network", Rule: "network.value_from_field_path"}}, Hint: "must name an output of CivoKubernetesCluster"},
		{Name: "a firewall reference without kind is rejected: the kind names the referenced stack", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.Firewall = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Name: "prod-fra1"})
		}, Want: []spectest.Violation{{Field: "spec.firewall", Rule: "firewall.value_from_kind"}}, Hint: "firewall.valueFrom.kind must be CivoKubernetesCluster"},
		{Name: "a firewall reference to another kind is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.Firewall = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "SomethingElse", Name: "prod-fra1"})
		}, Want: []spectest.Violation{{Field: "spec.firewall", Rule: "firewall.value_from_kind"}}, Hint: ""},
		{Name: "a firewall reference to an output the kind does not have is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.Firewall = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Name: "prod-fra1", FieldPath: "status.outputs.no_such_output"})
		}, Want: []spectest.Violation{{Field: "spec.firewall", Rule: "firewall.value_from_field_path"}}, Hint: "must name an output of CivoKubernetesCluster"},
		{Name: "a network reference without a name is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.Network = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster"})
		}, Want: []spectest.Violation{{Field: "spec.network.value_from.name", Rule: "required"}}, Hint: ""},
		{Name: "a network reference with an upper-case name is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.Network = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Name: "Prod-Net"})
		}, Want: []spectest.Violation{{Field: "spec.network.value_from.name", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a network reference with a name of 64 characters is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.Network = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Name: strings.Repeat("n", 64)})
		}, Want: []spectest.Violation{{Field: "spec.network.value_from.name", Rule: "string.max_len"}}, Hint: ""},
		{Name: "a network reference whose field_path is not under status.outputs is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.Network = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Name: "prod-net", FieldPath: "spec.network_id"})
		}, Want: []spectest.Violation{{Field: "spec.network.value_from.field_path", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a firewall with an empty literal value is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.Firewall = sharedv1.StringValue("") },
			Want: []spectest.Violation{{Field: "spec.firewall.value", Rule: "string.min_len"}}, Hint: ""},
		{Name: "a firewall with neither value nor valueFrom is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.Firewall = &sharedv1.StringValueOrRef{} },
			Want: []spectest.Violation{{Field: "spec.firewall.literal_or_ref", Rule: "required"}}, Hint: ""},

		// api_server_allowed_cidrs.
		{Name: "an allowed cidr that is a bare address is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.ApiServerAllowedCidrs = []string{"203.0.113.7"} },
			Want: []spectest.Violation{{Field: "spec.api_server_allowed_cidrs[0]", Rule: "string.ipv4_prefix"}}, Hint: ""},
		{Name: "an allowed cidr with host bits set is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.ApiServerAllowedCidrs = []string{"203.0.113.0/24", "198.51.100.7/24"}
		}, Want: []spectest.Violation{{Field: "spec.api_server_allowed_cidrs[1]", Rule: "string.ipv4_prefix"}}, Hint: ""},
		{Name: "an IPv6 allowed cidr is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.ApiServerAllowedCidrs = []string{"2001:db8::/32"} },
			Want: []spectest.Violation{{Field: "spec.api_server_allowed_cidrs[0]", Rule: "string.ipv4_prefix"}}, Hint: ""},
		{Name: "a repeated allowed cidr is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.ApiServerAllowedCidrs = []string{"203.0.113.0/24", "203.0.113.0/24"}
		}, Want: []spectest.Violation{{Field: "spec.api_server_allowed_cidrs", Rule: "repeated.unique"}}, Hint: ""},
		{Name: "allowed cidrs next to an existing firewall are rejected", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.Firewall = sharedv1.StringValue("5d7e9f10-2a3b-4c5d-8e6f-7a8b9c0d1e2f")
			c.Spec.ApiServerAllowedCidrs = []string{"203.0.113.0/24"}
		}, Want: []spectest.Violation{{Field: "spec.api_server_allowed_cidrs", Rule: "api_server_allowed_cidrs.created_firewall_only"}}, Hint: "remove firewall"},

		// default_node_pool.
		{Name: "a cluster without default_node_pool is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.DefaultNodePool = nil },
			Want: []spectest.Violation{{Field: "spec.default_node_pool", Rule: "required"}}, Hint: ""},
		{Name: "a default pool without size is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.DefaultNodePool.Size = "" },
			Want: []spectest.Violation{{Field: "spec.default_node_pool.size", Rule: "required"}}, Hint: ""},
		{Name: "a default pool of zero nodes is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.DefaultNodePool.NodeCount = 0 },
			Want: []spectest.Violation{{Field: "spec.default_node_pool.node_count", Rule: "int32.gte_lte"}}, Hint: ""},
		{Name: "a default pool with a negative node_count is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.DefaultNodePool.NodeCount = -2 },
			Want: []spectest.Violation{{Field: "spec.default_node_pool.node_count", Rule: "int32.gte_lte"}}, Hint: ""},

		// The pinned Civo provider drops default-pool labels and taints (civo/terraform-provider-civo#380).
		{Name: "default-pool labels are rejected: the pinned provider drops them", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.DefaultNodePool.Labels = map[string]string{"workload": "general"}
		}, Want: []spectest.Violation{{Field: "spec.default_node_pool.labels", Rule: "labels.dropped_by_civo"}}, Hint: "put them on a CivoKubernetesNodePool"},
		{Name: "default-pool taints are rejected: the pinned provider drops them", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.DefaultNodePool.Taints = []*sharedv1.Taint{{Key: "dedicated", Value: "web", Effect: sharedv1.TaintEffect_NoSchedule}}
		}, Want: []spectest.Violation{{Field: "spec.default_node_pool.taints", Rule: "taints.dropped_by_civo"}}, Hint: "civo/terraform-provider-civo#380"},

		{Name: "a default-pool taint is still checked as a taint", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.DefaultNodePool.Taints = []*sharedv1.Taint{{Key: spectest.Prefix254 + "/gpu", Effect: sharedv1.TaintEffect_NoSchedule}}
		}, Want: []spectest.Violation{
			{Field: "spec.default_node_pool.taints", Rule: "taints.dropped_by_civo"},
			{Field: "spec.default_node_pool.taints[0].key", Rule: "key.prefix_max_len"},
		}, Hint: ""},

		// Civo ids are UUIDs.
		{Name: "a network id that is not a UUID is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.Network = sharedv1.StringValue("prod-net") },
			Want: []spectest.Violation{{Field: "spec.network", Rule: "network.uuid"}}, Hint: "spec.network: must be a Civo network id"},
		{Name: "a firewall id that is not a UUID is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.Firewall = sharedv1.StringValue("fw-1234") },
			Want: []spectest.Violation{{Field: "spec.firewall", Rule: "firewall.uuid"}}, Hint: "spec.firewall: must be a Civo firewall id"},

		// applications and tags.
		{Name: "an application name with a comma is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.Applications = []string{"metrics-server,traefik"} },
			Want: []spectest.Violation{{Field: "spec.applications[0]", Rule: "string.pattern"}}, Hint: ""},
		{Name: "an application name with a leading space is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.Applications = []string{"metrics-server", " traefik"} },
			Want: []spectest.Violation{{Field: "spec.applications[1]", Rule: "string.pattern"}}, Hint: ""},
		{Name: "an empty application name is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.Applications = []string{""} },
			Want: []spectest.Violation{{Field: "spec.applications[0]", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a repeated application is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) {
			c.Spec.Applications = []string{"metrics-server", "metrics-server"}
		}, Want: []spectest.Violation{{Field: "spec.applications", Rule: "repeated.unique"}}, Hint: ""},
		{Name: "a tag with whitespace is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.Tags = []string{"team platform"} },
			Want: []spectest.Violation{{Field: "spec.tags[0]", Rule: "string.pattern"}}, Hint: ""},
		{Name: "an empty tag is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.Tags = []string{"ok", ""} },
			Want: []spectest.Violation{{Field: "spec.tags[1]", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a repeated tag is rejected", Mutate: func(c *cluster.CivoKubernetesCluster) { c.Spec.Tags = []string{"team-platform", "team-platform"} },
			Want: []spectest.Violation{{Field: "spec.tags", Rule: "repeated.unique"}}, Hint: ""},
	}...)
	spectest.AssertRejections(t, validCivoKubernetesCluster, tests)
}

func TestCivoKubernetesClusterReportsEveryMistakeAtOnce(t *testing.T) {
	c := validCivoKubernetesCluster()
	c.Metadata.Name = "Prod"
	c.Spec.KubernetesVersion = "1.30.5+k3s1"
	c.Spec.Network = &sharedv1.StringValueOrRef{}
	c.Spec.DefaultNodePool.NodeCount = 0
	c.Spec.DefaultNodePool.Labels = map[string]string{"Bad Key": "x"}
	c.Spec.Tags = []string{"a b"}
	c.Spec.Firewall = sharedv1.StringValue("fw-1")
	c.Spec.ApiServerAllowedCidrs = []string{"10.0.0.0/8"}

	err := validation.Validate(c)
	spectest.AssertViolations(t, err,
		spectest.Violation{Field: "metadata.name", Rule: "string.pattern"},
		spectest.Violation{Field: "spec.kubernetes_version", Rule: "kubernetes_version.no_plus"},
		spectest.Violation{Field: "spec.network.literal_or_ref", Rule: "required"},
		spectest.Violation{Field: "spec.default_node_pool.node_count", Rule: "int32.gte_lte"},
		spectest.Violation{Field: "spec.default_node_pool.labels", Rule: "labels.dropped_by_civo"},
		spectest.Violation{Field: "spec.tags[0]", Rule: "string.pattern"},
		spectest.Violation{Field: "spec.api_server_allowed_cidrs", Rule: "api_server_allowed_cidrs.created_firewall_only"},
		spectest.Violation{Field: "spec.firewall", Rule: "firewall.uuid"},
	)
	spectest.AssertViolationsListed(t, err)
	if !strings.Contains(err.Error(), "8 violations") {
		t.Errorf("error does not count 8 violations:\n%v", err)
	}
}

func TestCivoKubernetesClusterStackInput(t *testing.T) {
	t.Run("a stack input with a valid target and no provider config is accepted", func(t *testing.T) {
		in := &cluster.CivoKubernetesClusterStackInput{Target: validCivoKubernetesCluster()}
		if err := validation.Validate(in); err != nil {
			t.Fatalf("Validate() = %v, want nil", err)
		}
	})
	t.Run("a provider config with every field empty is accepted", func(t *testing.T) {
		in := &cluster.CivoKubernetesClusterStackInput{Target: validCivoKubernetesCluster(), ProviderConfig: &civov1.CivoProviderConfig{}}
		if err := validation.Validate(in); err != nil {
			t.Fatalf("Validate() = %v, want nil", err)
		}
	})
	t.Run("a provider config with every field set is accepted", func(t *testing.T) {
		in := &cluster.CivoKubernetesClusterStackInput{Target: validCivoKubernetesCluster(), ProviderConfig: &civov1.CivoProviderConfig{
			ApiToken: "secret-token", DefaultRegion: "lon1", ApiUrl: "https://api.civo.com",
		}}
		if err := validation.Validate(in); err != nil {
			t.Fatalf("Validate() = %v, want nil", err)
		}
	})
	t.Run("a stack input without target is rejected", func(t *testing.T) {
		spectest.AssertViolations(t, validation.Validate(&cluster.CivoKubernetesClusterStackInput{}), spectest.Violation{Field: "target", Rule: "required"})
	})
	t.Run("a stack input reports its target's violations under target", func(t *testing.T) {
		c := validCivoKubernetesCluster()
		c.Spec.ClusterName = ""
		spectest.AssertViolations(t, validation.Validate(&cluster.CivoKubernetesClusterStackInput{Target: c}), spectest.Violation{Field: "target.spec.cluster_name", Rule: "required"})
	})
	t.Run("a provider config with an invalid api_url is rejected", func(t *testing.T) {
		in := &cluster.CivoKubernetesClusterStackInput{Target: validCivoKubernetesCluster(), ProviderConfig: &civov1.CivoProviderConfig{ApiToken: "a-token-of-its-own", ApiUrl: "api.civo.com without scheme"}}
		spectest.AssertViolations(t, validation.Validate(in), spectest.Violation{Field: "provider_config.api_url", Rule: "string.uri"})
	})
	t.Run("a provider config with a default_region in capitals is rejected", func(t *testing.T) {
		in := &cluster.CivoKubernetesClusterStackInput{Target: validCivoKubernetesCluster(), ProviderConfig: &civov1.CivoProviderConfig{DefaultRegion: "FRA1"}}
		spectest.AssertViolations(t, validation.Validate(in), spectest.Violation{Field: "provider_config.default_region", Rule: "string.pattern"})
	})
	t.Run("an api token never appears in a validation error", func(t *testing.T) {
		in := &cluster.CivoKubernetesClusterStackInput{ProviderConfig: &civov1.CivoProviderConfig{ApiToken: "s3cr3t-t0ken", ApiUrl: "::"}}
		err := validation.Validate(in)
		spectest.AssertViolations(t, err, spectest.Violation{Field: "target", Rule: "required"}, spectest.Violation{Field: "provider_config.api_url", Rule: "string.uri"})
		if strings.Contains(err.Error(), "s3cr3t-t0ken") {
			t.Errorf("error leaks the token: %v", err)
		}
	})
}

// The pinned provider's plan-time version checks, as terraform-provider-civo v1.1.4 writes them
// (civo/kubernetes/resource_kubernetes_cluster.go, k3sVersionRegex and talosVersionRegex, used by
// customizeDiffKubernetesCluster). The manifest rules must accept exactly what they accept, so
// that no manifest passes validate and then fails pulumi preview.
var (
	providerK3sVersion   = regexp.MustCompile(`^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)-k3s\d$`)
	providerTalosVersion = regexp.MustCompile(`^talos-v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$`)
)

func TestVersionsAreAcceptedExactlyWhenThePinnedProvidersPreviewAcceptsThem(t *testing.T) {
	versions := []string{
		"1.30.5-k3s1", "v1.30.5-k3s1", "1.30.0-k3s9", "0.1.0-k3s1",
		"1.30.5-k3s10", "01.30.5-k3s1", "1.030.5-k3s1", "1.30.05-k3s1", "1.30-k3s1", "1.30.5-k3s", "1.30.5-k3s1-gpu",
		"v1.30.5", "1.30.5",
		"talos-v1.5.0", "talos-v1.10.2", "talos-v01.5.0", "talos-v1.5", "talos-1.5.0", "talos-v1.5.0-rc1",
	}
	for _, clusterType := range []cluster.CivoKubernetesClusterType{cluster.CivoKubernetesClusterType_k3s, cluster.CivoKubernetesClusterType_talos} {
		provider := providerK3sVersion
		if clusterType == cluster.CivoKubernetesClusterType_talos {
			provider = providerTalosVersion
		}
		for _, v := range versions {
			t.Run(clusterType.String()+"/"+v, func(t *testing.T) {
				c := validCivoKubernetesCluster()
				c.Spec.ClusterType, c.Spec.KubernetesVersion = clusterType, v
				err := validation.Validate(c)
				if accepted, want := err == nil, provider.MatchString(v); accepted != want {
					t.Errorf("validate accepts %q: %t, the provider's preview accepts it: %t (%v)", v, accepted, want, err)
				}
			})
		}
	}
}
