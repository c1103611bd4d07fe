package digitaloceankubernetesclusterv1_test

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	cluster "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/module"
	"github.com/clusterplane/clusterplane/internal/testing/providerschema"
	"github.com/clusterplane/clusterplane/internal/testing/spectest"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// validDigitalOceanKubernetesCluster is the smallest manifest that passes validation.
func validDigitalOceanKubernetesCluster() *cluster.DigitalOceanKubernetesCluster {
	return &cluster.DigitalOceanKubernetesCluster{
		ApiVersion: "digitalocean.clusterplane.dev/v1",
		Kind:       "DigitalOceanKubernetesCluster",
		Metadata:   &sharedv1.CloudResourceMetadata{Name: "prod-fra1"},
		Spec: &cluster.DigitalOceanKubernetesClusterSpec{
			ClusterName:       "prod-fra1",
			Region:            "fra1",
			KubernetesVersion: "1.31.1-do.5",
			DefaultNodePool:   &cluster.DigitalOceanKubernetesClusterDefaultNodePool{Size: "s-2vcpu-4gb", NodeCount: 3},
		},
	}
}

func subnets(clusterSubnet, serviceSubnet string) func(*cluster.DigitalOceanKubernetesCluster) {
	return func(c *cluster.DigitalOceanKubernetesCluster) {
		c.Spec.ClusterSubnet, c.Spec.ServiceSubnet = clusterSubnet, serviceSubnet
	}
}

func autoScale(min, count, max int32) func(*cluster.DigitalOceanKubernetesCluster) {
	return func(c *cluster.DigitalOceanKubernetesCluster) {
		p := c.Spec.DefaultNodePool
		p.AutoScale, p.MinNodes, p.NodeCount, p.MaxNodes = true, min, count, max
	}
}

func TestDigitalOceanKubernetesClusterAcceptsValidManifests(t *testing.T) {
	tests := []spectest.Acceptance[*cluster.DigitalOceanKubernetesCluster]{
		{Name: "a minimal cluster in the default VPC is accepted", Mutate: func(*cluster.DigitalOceanKubernetesCluster) {}},
		{Name: "a region DigitalOcean may open tomorrow is accepted: the cloud decides", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.Region = "xyz9" }},
		{Name: "a cluster with every field set is accepted", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Metadata = &sharedv1.CloudResourceMetadata{Name: "prod-fra1", Id: "k8s-0042", Org: "acme", Env: "prod",
				Labels: map[string]string{"team": "platform"}, Annotations: map[string]string{"note": "free text"}}
			c.Spec = &cluster.DigitalOceanKubernetesClusterSpec{
				ClusterName:                          "prod-fra1",
				Region:                               "ams3",
				KubernetesVersion:                    "1.31.1-do.5",
				Vpc:                                  sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "DigitalOceanKubernetesCluster", Env: "prod", Name: "prod-vpc", FieldPath: "status.outputs.vpc_uuid"}),
				HighlyAvailable:                      true,
				AutoUpgrade:                          true,
				DisableSurgeUpgrade:                  true,
				MaintenanceWindow:                    &cluster.DigitalOceanKubernetesClusterMaintenanceWindow{Day: cluster.DigitalOceanKubernetesClusterMaintenanceDay_sunday, StartTime: "03:00"},
				RegistryIntegration:                  true,
				ControlPlaneFirewallAllowedAddresses: []string{"203.0.113.7", "198.51.100.0/24"},
				ClusterSubnet:                        "10.244.0.0/16",
				ServiceSubnet:                        "10.245.0.0/16",
				KubeconfigExpireSeconds:              86400,
				DestroyAllAssociatedResources:        true,
				ClusterAutoscaler: &cluster.DigitalOceanKubernetesClusterAutoscaler{
					ScaleDownUtilizationThreshold: proto.Float64(0.65), ScaleDownUnneededTime: "1h30m",
					Expanders: []string{"priority", "least-waste", "random", "most-pods", "price"},
				},
				RoutingAgent:                      proto.Bool(true),
				NvidiaGpuDevicePlugin:             proto.Bool(true),
				AmdGpuDevicePlugin:                proto.Bool(false),
				AmdGpuDeviceMetricsExporterPlugin: proto.Bool(false),
				RdmaSharedDevicePlugin:            proto.Bool(true),
				DeletionProtection:                proto.Bool(false),
				DefaultNodePool: &cluster.DigitalOceanKubernetesClusterDefaultNodePool{
					NodePoolName: "system",
					Size:         "s-4vcpu-8gb",
					NodeCount:    3,
					AutoScale:    true,
					MinNodes:     2,
					MaxNodes:     5,
					Labels:       map[string]string{"workload": "system", "example.com/role": "system"},
					Taints:       []*sharedv1.Taint{{Key: "CriticalAddonsOnly", Value: "true", Effect: sharedv1.TaintEffect_PreferNoSchedule}},
					Tags:         []string{"pool-system", "team:platform"},
				},
				Tags: []string{"team-platform", "env:prod", "cost_center-42"},
			}
			c.Status = &cluster.DigitalOceanKubernetesClusterStatus{Outputs: &cluster.DigitalOceanKubernetesClusterStackOutputs{ClusterId: "abc"}}
		}},
		{Name: "a minor line with auto_upgrade is accepted", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.KubernetesVersion, c.Spec.AutoUpgrade = "1.31", true
		}},
		{Name: "a VPC given by a literal UUID is accepted", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.Vpc = sharedv1.StringValue("c1a2b3c4-0000-4000-8000-000000000001")
		}},
		{Name: "a maintenance window on any day at 23:59 is accepted", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.MaintenanceWindow = &cluster.DigitalOceanKubernetesClusterMaintenanceWindow{Day: cluster.DigitalOceanKubernetesClusterMaintenanceDay_any, StartTime: "23:59"}
		}},
		{Name: "a maintenance window at 00:00 is accepted", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.MaintenanceWindow = &cluster.DigitalOceanKubernetesClusterMaintenanceWindow{Day: cluster.DigitalOceanKubernetesClusterMaintenanceDay_monday, StartTime: "00:00"}
		}},
		{Name: "adjacent cluster and service subnets are accepted", Mutate: subnets("10.244.0.0/16", "10.245.0.0/16")},
		{Name: "subnets in different private ranges are accepted", Mutate: subnets("172.16.0.0/12", "10.96.0.0/12")},
		{Name: "a small service subnet just past the cluster subnet is accepted", Mutate: subnets("192.168.0.0/17", "192.168.128.0/24")},
		{Name: "only a cluster subnet is accepted", Mutate: subnets("10.244.0.0/16", "")},
		{Name: "only a service subnet is accepted", Mutate: subnets("", "10.245.0.0/16")},
		{Name: "an autoscaler threshold of exactly 0 and unneeded time in seconds are accepted", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.ClusterAutoscaler = &cluster.DigitalOceanKubernetesClusterAutoscaler{ScaleDownUtilizationThreshold: proto.Float64(0), ScaleDownUnneededTime: "90s"}
		}},
		{Name: "an autoscaler threshold of exactly 1 and a fractional duration are accepted", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.ClusterAutoscaler = &cluster.DigitalOceanKubernetesClusterAutoscaler{ScaleDownUtilizationThreshold: proto.Float64(1), ScaleDownUnneededTime: "1.5h"}
		}},
		{Name: "an empty cluster autoscaler is accepted", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.ClusterAutoscaler = &cluster.DigitalOceanKubernetesClusterAutoscaler{}
		}},
		{Name: "a control-plane firewall of one address is accepted", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.ControlPlaneFirewallAllowedAddresses = []string{"203.0.113.7"}
		}},
		{Name: "a default pool with autoscaling and no node_count is accepted", Mutate: autoScale(1, 0, 3)},
		{Name: "a default pool with autoscaling at the exact bounds is accepted", Mutate: autoScale(2, 2, 2)},
		{Name: "a default pool with node_count at the upper bound is accepted", Mutate: autoScale(1, 5, 5)},
		{Name: "a default pool with one node and no name is accepted", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.DefaultNodePool.NodeCount, c.Spec.DefaultNodePool.NodePoolName = 1, ""
		}},
		{Name: "a taint with an empty value and a label key with a DNS prefix are accepted", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.DefaultNodePool.Taints = []*sharedv1.Taint{{Key: "example.com/dedicated", Effect: sharedv1.TaintEffect_NoExecute}}
			c.Spec.DefaultNodePool.Labels = map[string]string{"example.com/role": "system"}
		}},
		{Name: "a label key and a taint key with a DNS prefix of exactly 253 characters are accepted", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.DefaultNodePool.Labels = map[string]string{spectest.Prefix253 + "/role": "system"}
			c.Spec.DefaultNodePool.Taints = []*sharedv1.Taint{{Key: spectest.Prefix253 + "/" + strings.Repeat("n", 63), Effect: sharedv1.TaintEffect_NoSchedule}}
		}},
		{Name: "the same taint key with different effects is accepted", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.DefaultNodePool.Taints = []*sharedv1.Taint{
				{Key: "dedicated", Effect: sharedv1.TaintEffect_NoSchedule},
				{Key: "dedicated", Effect: sharedv1.TaintEffect_PreferNoSchedule},
			}
		}},
		{Name: "tags that merely contain k8s or terraform are accepted", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.Tags = []string{"k8s-team", "my-k8s:prod", "terraform"}
			c.Spec.DefaultNodePool.Tags = []string{"k8s_pool"}
		}},
		{Name: "a tag of exactly 255 characters is accepted", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.Tags = []string{strings.Repeat("t", 255)}
		}},
		{Name: "the last DigitalOcean region is accepted", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.Region = "atl1"
		}},
	}
	spectest.AssertAcceptances(t, validDigitalOceanKubernetesCluster, tests, func(t *testing.T, c *cluster.DigitalOceanKubernetesCluster) {
		// What the module registers for a valid manifest, the pinned provider accepts.
		in := &cluster.DigitalOceanKubernetesClusterStackInput{Target: c}
		providerschema.AssertPlanConforms(t, func(ctx *pulumi.Context) error { return module.Resources(ctx, in) })
	})
}

func TestDigitalOceanKubernetesClusterRejectsEachBrokenRule(t *testing.T) {
	const pool = "spec.default_node_pool"
	// The rules every kind shares come first, then this kind's own.
	tests := append(append(spectest.Envelope[*cluster.DigitalOceanKubernetesCluster]("digitalocean.clusterplane.dev/v1", "DigitalOceanKubernetesCluster", "civo.clusterplane.dev/v1", "CivoKubernetesCluster"), spectest.TaggedMetadata[*cluster.DigitalOceanKubernetesCluster]()...), []spectest.Rejection[*cluster.DigitalOceanKubernetesCluster]{
		// Envelope.
		// Node limits: Kubernetes supports at most 5,000 nodes in a cluster.
		{Name: "a default pool of 5001 nodes is rejected: Kubernetes supports 5,000 nodes a cluster", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.DefaultNodePool.NodeCount = 5001 },
			Want: []spectest.Violation{{Field: "spec.default_node_pool.node_count", Rule: "int32.gte_lte"}}, Hint: "5000"},
		// metadata becomes DigitalOcean tags.
		{Name: "a metadata.name with an upper-case letter is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Metadata.Name = "prod-FRA1" },
			Want: []spectest.Violation{{Field: "metadata.name", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a metadata.name of 64 characters is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Metadata.Name = strings.Repeat("m", 64) },
			Want: []spectest.Violation{{Field: "metadata.name", Rule: "string.max_len"}}, Hint: ""},

		// cluster_name, region, kubernetes_version.
		{Name: "a cluster without cluster_name is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.ClusterName = "" },
			Want: []spectest.Violation{{Field: "spec.cluster_name", Rule: "required"}}, Hint: ""},
		{Name: "a cluster_name with a dot is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.ClusterName = "prod.fra1" },
			Want: []spectest.Violation{{Field: "spec.cluster_name", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a cluster_name of 64 characters is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.ClusterName = strings.Repeat("c", 64) },
			Want: []spectest.Violation{{Field: "spec.cluster_name", Rule: "string.max_len"}}, Hint: ""},
		{Name: "an unspecified region is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.Region = ""
		}, Want: []spectest.Violation{{Field: "spec.region", Rule: "required"}}, Hint: ""},
		{Name: "a region in capitals is rejected: manifests write region codes in lower case", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.Region = "FRA1" },
			Want: []spectest.Violation{{Field: "spec.region", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a region name with a space is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.Region = "fra 1" },
			Want: []spectest.Violation{{Field: "spec.region", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a region of more than eight characters is one error, in the region rule's words", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.Region = "frankfurt1" },
			Want: []spectest.Violation{{Field: "spec.region", Rule: "string.pattern"}}, Hint: "must be a region code"},
		{Name: "a cluster without kubernetes_version is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.KubernetesVersion = "" },
			Want: []spectest.Violation{{Field: "spec.kubernetes_version", Rule: "required"}}, Hint: ""},
		{Name: "a kubernetes_version of 1.29.x is rejected with a message naming the slug form", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.KubernetesVersion = "1.29.x" },
			Want: []spectest.Violation{{Field: "spec.kubernetes_version", Rule: "kubernetes_version.slug"}}, Hint: "spec.kubernetesVersion: must be a DigitalOcean version slug like 1.31.1-do.5"},
		{Name: "a minor line without auto_upgrade is rejected: nothing would keep its patch current", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.KubernetesVersion = "1.31" },
			Want: []spectest.Violation{{Field: "spec.kubernetes_version", Rule: "kubernetes_version.minor_line_needs_auto_upgrade"}}, Hint: "needs autoUpgrade"},
		{Name: "a kubernetes_version of latest is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.KubernetesVersion = "latest" },
			Want: []spectest.Violation{{Field: "spec.kubernetes_version", Rule: "kubernetes_version.slug"}}, Hint: "1.31.1-do.5"},
		{Name: "a kubernetes_version without the -do suffix is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.KubernetesVersion = "1.31.1" },
			Want: []spectest.Violation{{Field: "spec.kubernetes_version", Rule: "kubernetes_version.slug"}}, Hint: ""},

		// vpc.
		{Name: "a vpc with neither value nor valueFrom is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.Vpc = &sharedv1.StringValueOrRef{} },
			Want: []spectest.Violation{{Field: "spec.vpc.literal_or_ref", Rule: "required"}}, Hint: ""},
		{Name: "a vpc with an empty literal value is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.Vpc = sharedv1.StringValue("") },
			Want: []spectest.Violation{{Field: "spec.vpc.value", Rule: "string.min_len"}}, Hint: ""},
		{Name: "a vpc reference without kind is rejected: the kind names the referenced stack", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.Vpc = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Name: "prod-fra1"})
		}, Want: []spectest.Violation{{Field: "spec.vpc", Rule: "vpc.value_from_kind"}}, Hint: "vpc.valueFrom.kind must be DigitalOceanKubernetesCluster"},
		{Name: "a vpc reference to another kind is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.Vpc = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "SomethingElse", Name: "prod-fra1"})
		}, Want: []spectest.Violation{{Field: "spec.vpc", Rule: "vpc.value_from_kind"}}, Hint: ""},
		{Name: "a vpc reference to an output the kind does not have is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.Vpc = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "DigitalOceanKubernetesCluster", Name: "prod-fra1", FieldPath: "status.outputs.no_such_output"})
		}, Want: []spectest.Violation{{Field: "spec.vpc", Rule: "vpc.value_from_field_path"}}, Hint: "must name an output of DigitalOceanKubernetesCluster"},
		{Name: "a vpc reference without a name is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.Vpc = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "DigitalOceanKubernetesCluster", Env: "prod", FieldPath: "status.outputs.vpc_uuid"})
		}, Want: []spectest.Violation{{Field: "spec.vpc.value_from.name", Rule: "required"}}, Hint: ""},
		{Name: "a vpc reference with a name of 64 characters is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.Vpc = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "DigitalOceanKubernetesCluster", Name: strings.Repeat("v", 64)})
		}, Want: []spectest.Violation{{Field: "spec.vpc.value_from.name", Rule: "string.max_len"}}, Hint: ""},
		{Name: "a vpc reference with an invalid name is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.Vpc = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "DigitalOceanKubernetesCluster", Name: "Prod VPC"})
		}, Want: []spectest.Violation{{Field: "spec.vpc.value_from.name", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a vpc reference with a field_path outside status.outputs is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.Vpc = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "DigitalOceanKubernetesCluster", Name: "prod-vpc", FieldPath: "outputs.vpc_id"})
		}, Want: []spectest.Violation{{Field: "spec.vpc.value_from.field_path", Rule: "string.pattern"}}, Hint: ""},

		// maintenance_window.
		{Name: "a maintenance window without day is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.MaintenanceWindow = &cluster.DigitalOceanKubernetesClusterMaintenanceWindow{StartTime: "03:00"}
		}, Want: []spectest.Violation{{Field: "spec.maintenance_window.day", Rule: "required"}}, Hint: ""},
		{Name: "a maintenance window with an unknown day number is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.MaintenanceWindow = &cluster.DigitalOceanKubernetesClusterMaintenanceWindow{Day: 9, StartTime: "03:00"}
		}, Want: []spectest.Violation{{Field: "spec.maintenance_window.day", Rule: "enum.defined_only"}}, Hint: ""},
		{Name: "a maintenance window without start_time is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.MaintenanceWindow = &cluster.DigitalOceanKubernetesClusterMaintenanceWindow{Day: cluster.DigitalOceanKubernetesClusterMaintenanceDay_any}
		}, Want: []spectest.Violation{{Field: "spec.maintenance_window.start_time", Rule: "required"}}, Hint: ""},
		{Name: "a maintenance start_time of 24:00 is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.MaintenanceWindow = &cluster.DigitalOceanKubernetesClusterMaintenanceWindow{Day: cluster.DigitalOceanKubernetesClusterMaintenanceDay_friday, StartTime: "24:00"}
		}, Want: []spectest.Violation{{Field: "spec.maintenance_window.start_time", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a maintenance start_time without a leading zero is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.MaintenanceWindow = &cluster.DigitalOceanKubernetesClusterMaintenanceWindow{Day: cluster.DigitalOceanKubernetesClusterMaintenanceDay_friday, StartTime: "3:00"}
		}, Want: []spectest.Violation{{Field: "spec.maintenance_window.start_time", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a maintenance start_time with a 12-hour suffix is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.MaintenanceWindow = &cluster.DigitalOceanKubernetesClusterMaintenanceWindow{Day: cluster.DigitalOceanKubernetesClusterMaintenanceDay_friday, StartTime: "03:00pm"}
		}, Want: []spectest.Violation{{Field: "spec.maintenance_window.start_time", Rule: "string.pattern"}}, Hint: ""},

		// control_plane_firewall_allowed_addresses.
		{Name: "a firewall address that is a host name is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.ControlPlaneFirewallAllowedAddresses = []string{"203.0.113.7", "office.example.com"}
		}, Want: []spectest.Violation{{Field: "spec.control_plane_firewall_allowed_addresses[1]", Rule: "ipv4_address_or_cidr"}}, Hint: "must be an IPv4 address or CIDR"},
		{Name: "an IPv6 firewall address is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.ControlPlaneFirewallAllowedAddresses = []string{"2001:db8::1"}
		}, Want: []spectest.Violation{{Field: "spec.control_plane_firewall_allowed_addresses[0]", Rule: "ipv4_address_or_cidr"}}, Hint: ""},
		{Name: "a firewall cidr with a prefix length above 32 is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.ControlPlaneFirewallAllowedAddresses = []string{"198.51.100.0/33"}
		}, Want: []spectest.Violation{{Field: "spec.control_plane_firewall_allowed_addresses[0]", Rule: "ipv4_address_or_cidr"}}, Hint: ""},
		{Name: "a repeated firewall address is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.ControlPlaneFirewallAllowedAddresses = []string{"203.0.113.7", "203.0.113.7"}
		}, Want: []spectest.Violation{{Field: "spec.control_plane_firewall_allowed_addresses", Rule: "repeated.unique"}}, Hint: ""},

		// cluster_subnet and service_subnet.
		{Name: "a cluster_subnet that is a bare address is rejected", Mutate: subnets("10.244.0.1", ""),
			Want: []spectest.Violation{{Field: "spec.cluster_subnet", Rule: "string.ipv4_prefix"}}, Hint: ""},
		{Name: "a cluster_subnet with host bits set is rejected", Mutate: subnets("10.244.0.1/16", "10.244.0.0/16"),
			Want: []spectest.Violation{{Field: "spec.cluster_subnet", Rule: "string.ipv4_prefix"}}, Hint: ""},
		{Name: "an IPv6 service_subnet is rejected", Mutate: subnets("", "fd00::/108"),
			Want: []spectest.Violation{{Field: "spec.service_subnet", Rule: "string.ipv4_prefix"}}, Hint: ""},
		{Name: "identical cluster and service subnets are rejected", Mutate: subnets("10.244.0.0/16", "10.244.0.0/16"),
			Want: []spectest.Violation{{Field: "spec", Rule: "subnets.no_overlap"}}, Hint: "spec: clusterSubnet and serviceSubnet must not overlap"},
		{Name: "a service subnet inside the cluster subnet is rejected", Mutate: subnets("10.0.0.0/8", "10.245.0.0/16"),
			Want: []spectest.Violation{{Field: "spec", Rule: "subnets.no_overlap"}}, Hint: ""},
		{Name: "a cluster subnet inside the service subnet is rejected", Mutate: subnets("192.168.128.0/24", "192.168.0.0/16"),
			Want: []spectest.Violation{{Field: "spec", Rule: "subnets.no_overlap"}}, Hint: ""},
		{Name: "a subnet of the whole address space overlaps any other", Mutate: subnets("0.0.0.0/0", "10.245.0.0/16"),
			Want: []spectest.Violation{{Field: "spec", Rule: "subnets.no_overlap"}}, Hint: ""},
		{Name: "two /32 subnets of the same address overlap", Mutate: subnets("10.0.0.1/32", "10.0.0.1/32"),
			Want: []spectest.Violation{{Field: "spec", Rule: "subnets.no_overlap"}}, Hint: ""},

		// kubeconfig_expire_seconds and cluster_autoscaler.
		{Name: "a negative kubeconfig_expire_seconds is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.KubeconfigExpireSeconds = -1 },
			Want: []spectest.Violation{{Field: "spec.kubeconfig_expire_seconds", Rule: "int32.gte"}}, Hint: ""},
		{Name: "an autoscaler threshold above 1 is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.ClusterAutoscaler = &cluster.DigitalOceanKubernetesClusterAutoscaler{ScaleDownUtilizationThreshold: proto.Float64(1.01)}
		}, Want: []spectest.Violation{{Field: "spec.cluster_autoscaler.scale_down_utilization_threshold", Rule: "double.gte_lte"}}, Hint: ""},
		{Name: "a negative autoscaler threshold is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.ClusterAutoscaler = &cluster.DigitalOceanKubernetesClusterAutoscaler{ScaleDownUtilizationThreshold: proto.Float64(-0.1)}
		}, Want: []spectest.Violation{{Field: "spec.cluster_autoscaler.scale_down_utilization_threshold", Rule: "double.gte_lte"}}, Hint: ""},
		{Name: "an unneeded time written in words is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.ClusterAutoscaler = &cluster.DigitalOceanKubernetesClusterAutoscaler{ScaleDownUnneededTime: "10 minutes"}
		}, Want: []spectest.Violation{{Field: "spec.cluster_autoscaler.scale_down_unneeded_time", Rule: "string.pattern"}}, Hint: ""},
		{Name: "an expander the cluster autoscaler does not know is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.ClusterAutoscaler = &cluster.DigitalOceanKubernetesClusterAutoscaler{Expanders: []string{"cheapest"}}
		}, Want: []spectest.Violation{{Field: "spec.cluster_autoscaler.expanders[0]", Rule: "string.in"}}, Hint: ""},
		{Name: "an expander named twice is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.ClusterAutoscaler = &cluster.DigitalOceanKubernetesClusterAutoscaler{Expanders: []string{"priority", "priority"}}
		}, Want: []spectest.Violation{{Field: "spec.cluster_autoscaler.expanders", Rule: "repeated.unique"}}, Hint: ""},
		{Name: "an unneeded time without a unit is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.ClusterAutoscaler = &cluster.DigitalOceanKubernetesClusterAutoscaler{ScaleDownUnneededTime: "600"}
		}, Want: []spectest.Violation{{Field: "spec.cluster_autoscaler.scale_down_unneeded_time", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a negative unneeded time is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.ClusterAutoscaler = &cluster.DigitalOceanKubernetesClusterAutoscaler{ScaleDownUnneededTime: "-5m"}
		}, Want: []spectest.Violation{{Field: "spec.cluster_autoscaler.scale_down_unneeded_time", Rule: "string.pattern"}}, Hint: ""},

		// tags.
		{Name: "a tag with a space is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.Tags = []string{"team platform"} },
			Want: []spectest.Violation{{Field: "spec.tags[0]", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a tag with a dot is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.Tags = []string{"ok", "v1.2"} },
			Want: []spectest.Violation{{Field: "spec.tags[1]", Rule: "string.pattern"}}, Hint: ""},
		{Name: "an empty tag is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.Tags = []string{""} },
			Want: []spectest.Violation{{Field: "spec.tags[0]", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a tag of 256 characters is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.Tags = []string{strings.Repeat("t", 256)} },
			Want: []spectest.Violation{{Field: "spec.tags[0]", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a repeated tag is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.Tags = []string{"team", "team"} },
			Want: []spectest.Violation{{Field: "spec.tags", Rule: "repeated.unique"}}, Hint: ""},
		{Name: "the tag k8s is rejected because the provider manages it", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.Tags = []string{"k8s"} },
			Want: []spectest.Violation{{Field: "spec.tags[0]", Rule: "tag.not_reserved"}}, Hint: "spec.tags[0]: must not be k8s or start with k8s: or terraform:"},
		{Name: "a tag starting with k8s: is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.Tags = []string{"ok", "k8s:abc123"} },
			Want: []spectest.Violation{{Field: "spec.tags[1]", Rule: "tag.not_reserved"}}, Hint: ""},
		{Name: "a tag starting with terraform: is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.Tags = []string{"terraform:default-node-pool"} },
			Want: []spectest.Violation{{Field: "spec.tags[0]", Rule: "tag.not_reserved"}}, Hint: ""},
		{Name: "a reserved tag in upper case is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.Tags = []string{"K8S:worker"} },
			Want: []spectest.Violation{{Field: "spec.tags[0]", Rule: "tag.not_reserved"}}, Hint: ""},

		// default_node_pool.
		{Name: "a cluster without default_node_pool is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.DefaultNodePool = nil },
			Want: []spectest.Violation{{Field: pool, Rule: "required"}}, Hint: ""},
		{Name: "a default pool name with an upper-case letter is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.DefaultNodePool.NodePoolName = "System" },
			Want: []spectest.Violation{{Field: pool + ".node_pool_name", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a default pool name of 64 characters is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.DefaultNodePool.NodePoolName = strings.Repeat("p", 64)
		}, Want: []spectest.Violation{{Field: pool + ".node_pool_name", Rule: "string.max_len"}}, Hint: ""},
		{Name: "a default pool without size is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.DefaultNodePool.Size = "" },
			Want: []spectest.Violation{{Field: pool + ".size", Rule: "required"}}, Hint: ""},
		{Name: "a default pool of zero nodes without autoscaling is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.DefaultNodePool.NodeCount = 0 },
			Want: []spectest.Violation{{Field: pool + ".node_count", Rule: "node_count.required_without_auto_scale"}}, Hint: "nodeCount: must be at least 1 unless autoScale is true"},
		{Name: "a default pool with a negative node_count is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.DefaultNodePool.NodeCount = -1 },
			Want: []spectest.Violation{{Field: pool + ".node_count", Rule: "int32.gte_lte"}, {Field: pool + ".node_count", Rule: "node_count.required_without_auto_scale"}}, Hint: ""},
		{Name: "autoscaling with min_nodes 0 is rejected", Mutate: autoScale(0, 0, 3),
			Want: []spectest.Violation{{Field: pool + ".min_nodes", Rule: "min_nodes.at_least_one"}}, Hint: ""},
		{Name: "autoscaling with a negative min_nodes is rejected", Mutate: autoScale(-1, 0, 3),
			Want: []spectest.Violation{{Field: pool + ".min_nodes", Rule: "int32.gte_lte"}, {Field: pool + ".min_nodes", Rule: "min_nodes.at_least_one"}}, Hint: ""},
		{Name: "autoscaling with max_nodes below min_nodes is rejected", Mutate: autoScale(3, 0, 2),
			Want: []spectest.Violation{{Field: pool + ".max_nodes", Rule: "max_nodes.at_least_min_nodes"}}, Hint: ""},
		{Name: "autoscaling with a negative max_nodes is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			autoScale(1, 0, -1)(c)
		}, Want: []spectest.Violation{{Field: pool + ".max_nodes", Rule: "int32.gte_lte"}, {Field: pool + ".max_nodes", Rule: "max_nodes.at_least_min_nodes"}}, Hint: ""},
		{Name: "autoscaling with node_count above max_nodes is rejected", Mutate: autoScale(1, 6, 5),
			Want: []spectest.Violation{{Field: pool + ".node_count", Rule: "node_count.within_bounds"}}, Hint: "nodeCount: must be between minNodes and maxNodes"},
		{Name: "autoscaling with node_count below min_nodes is rejected", Mutate: autoScale(2, 1, 5),
			Want: []spectest.Violation{{Field: pool + ".node_count", Rule: "node_count.within_bounds"}}, Hint: ""},
		{Name: "min_nodes without auto_scale is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.DefaultNodePool.MinNodes = 1 },
			Want: []spectest.Violation{{Field: pool + ".min_nodes", Rule: "min_nodes.needs_auto_scale"}}, Hint: "only allowed when autoScale is true"},
		{Name: "max_nodes without auto_scale is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) { c.Spec.DefaultNodePool.MaxNodes = 5 },
			Want: []spectest.Violation{{Field: pool + ".max_nodes", Rule: "max_nodes.needs_auto_scale"}}, Hint: ""},
		{Name: "a default pool label value with a slash is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.DefaultNodePool.Labels = map[string]string{"role": "a/b"}
		}, Want: []spectest.Violation{{Field: pool + `.labels["role"]`, Rule: "string.pattern"}}, Hint: ""},
		{Name: "a default pool label in the kubernetes.io namespace is rejected: the kubelet refuses it", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.DefaultNodePool.Labels = map[string]string{"kubernetes.io/role": "system"}
		}, Want: []spectest.Violation{{Field: pool + `.labels["kubernetes.io/role"]`, Rule: "label_key.kubelet_namespace"}}, Hint: "the nodes never join"},
		{Name: "a default pool label under k8s.io is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.DefaultNodePool.Labels = map[string]string{"k8s.io/tier": "a"}
		}, Want: []spectest.Violation{{Field: pool + `.labels["k8s.io/tier"]`, Rule: "label_key.kubelet_namespace"}}, Hint: ""},
		{Name: "a default pool taint without key is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.DefaultNodePool.Taints = []*sharedv1.Taint{{Value: "x", Effect: sharedv1.TaintEffect_NoSchedule}}
		}, Want: []spectest.Violation{{Field: pool + ".taints[0].key", Rule: "required"}}, Hint: ""},
		{Name: "a default pool taint key with an underscore in its prefix is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.DefaultNodePool.Taints = []*sharedv1.Taint{{Key: "my_org.com/gpu", Effect: sharedv1.TaintEffect_NoSchedule}}
		}, Want: []spectest.Violation{{Field: pool + ".taints[0].key", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a default pool taint value ending in an underscore is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.DefaultNodePool.Taints = []*sharedv1.Taint{{Key: "gpu", Value: "yes_", Effect: sharedv1.TaintEffect_NoSchedule}}
		}, Want: []spectest.Violation{{Field: pool + ".taints[0].value", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a default pool taint without effect is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.DefaultNodePool.Taints = []*sharedv1.Taint{{Key: "gpu"}}
		}, Want: []spectest.Violation{{Field: pool + ".taints[0].effect", Rule: "required"}}, Hint: ""},
		{Name: "a default pool taint with an unknown effect number is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.DefaultNodePool.Taints = []*sharedv1.Taint{{Key: "gpu", Effect: 5}}
		}, Want: []spectest.Violation{{Field: pool + ".taints[0].effect", Rule: "enum.defined_only"}}, Hint: ""},
		{Name: "two default pool taints with the same key and effect are rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.DefaultNodePool.Taints = []*sharedv1.Taint{
				{Key: "gpu", Value: "a", Effect: sharedv1.TaintEffect_NoExecute},
				{Key: "gpu", Value: "b", Effect: sharedv1.TaintEffect_NoExecute},
			}
		}, Want: []spectest.Violation{{Field: pool + ".taints", Rule: "taints.unique_key_effect"}}, Hint: ""},
		{Name: "a default pool tag with a slash is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.DefaultNodePool.Tags = []string{"team/platform"}
		}, Want: []spectest.Violation{{Field: pool + ".tags[0]", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a repeated default pool tag is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.DefaultNodePool.Tags = []string{"pool", "pool"}
		}, Want: []spectest.Violation{{Field: pool + ".tags", Rule: "repeated.unique"}}, Hint: ""},
		{Name: "a reserved default pool tag is rejected", Mutate: func(c *cluster.DigitalOceanKubernetesCluster) {
			c.Spec.DefaultNodePool.Tags = []string{"terraform:pool"}
		}, Want: []spectest.Violation{{Field: pool + ".tags[0]", Rule: "tag.not_reserved"}}, Hint: ""},
	}...)
	tests = append(tests, spectest.LabelAndTaintKeys(pool, "default pool ",
		func(c *cluster.DigitalOceanKubernetesCluster, l map[string]string) { c.Spec.DefaultNodePool.Labels = l },
		func(c *cluster.DigitalOceanKubernetesCluster, t []*sharedv1.Taint) { c.Spec.DefaultNodePool.Taints = t })...)
	spectest.AssertRejections(t, validDigitalOceanKubernetesCluster, tests)
}

func TestDigitalOceanKubernetesClusterReportsEveryMistakeAtOnce(t *testing.T) {
	c := validDigitalOceanKubernetesCluster()
	c.ApiVersion = "v1"
	c.Spec.KubernetesVersion = "latest"
	c.Spec.Region = ""
	c.Spec.ClusterSubnet, c.Spec.ServiceSubnet = "10.0.0.0/8", "10.96.0.0/12"
	c.Spec.MaintenanceWindow = &cluster.DigitalOceanKubernetesClusterMaintenanceWindow{StartTime: "25:00"}
	c.Spec.Tags = []string{"k8s"}
	c.Spec.DefaultNodePool.NodeCount = 0
	c.Spec.DefaultNodePool.MaxNodes = 3

	err := validation.Validate(c)
	spectest.AssertViolations(t, err,
		spectest.Violation{Field: "api_version", Rule: "string.const"},
		spectest.Violation{Field: "spec.kubernetes_version", Rule: "kubernetes_version.slug"},
		spectest.Violation{Field: "spec.region", Rule: "required"},
		spectest.Violation{Field: "spec", Rule: "subnets.no_overlap"},
		spectest.Violation{Field: "spec.maintenance_window.day", Rule: "required"},
		spectest.Violation{Field: "spec.maintenance_window.start_time", Rule: "string.pattern"},
		spectest.Violation{Field: "spec.tags[0]", Rule: "tag.not_reserved"},
		spectest.Violation{Field: "spec.default_node_pool.node_count", Rule: "node_count.required_without_auto_scale"},
		spectest.Violation{Field: "spec.default_node_pool.max_nodes", Rule: "max_nodes.needs_auto_scale"},
	)
	spectest.AssertViolationsListed(t, err)
	if !strings.Contains(err.Error(), "9 violations") {
		t.Errorf("error does not count 9 violations:\n%v", err)
	}
}

func TestDigitalOceanKubernetesClusterStackInput(t *testing.T) {
	t.Run("a stack input with a valid target and no provider config is accepted", func(t *testing.T) {
		in := &cluster.DigitalOceanKubernetesClusterStackInput{Target: validDigitalOceanKubernetesCluster()}
		if err := validation.Validate(in); err != nil {
			t.Fatalf("Validate() = %v, want nil", err)
		}
	})
	t.Run("a provider config with every field empty is accepted", func(t *testing.T) {
		in := &cluster.DigitalOceanKubernetesClusterStackInput{Target: validDigitalOceanKubernetesCluster(), ProviderConfig: &digitaloceanv1.DigitalOceanProviderConfig{}}
		if err := validation.Validate(in); err != nil {
			t.Fatalf("Validate() = %v, want nil", err)
		}
	})
	t.Run("a provider config with a token and api_url is accepted", func(t *testing.T) {
		in := &cluster.DigitalOceanKubernetesClusterStackInput{Target: validDigitalOceanKubernetesCluster(), ProviderConfig: &digitaloceanv1.DigitalOceanProviderConfig{
			ApiToken: "dop_v1_secret", ApiUrl: "https://api.digitalocean.com",
		}}
		if err := validation.Validate(in); err != nil {
			t.Fatalf("Validate() = %v, want nil", err)
		}
	})
	t.Run("a stack input without target is rejected", func(t *testing.T) {
		spectest.AssertViolations(t, validation.Validate(&cluster.DigitalOceanKubernetesClusterStackInput{}), spectest.Violation{Field: "target", Rule: "required"})
	})
	t.Run("a stack input reports its target's violations under target", func(t *testing.T) {
		c := validDigitalOceanKubernetesCluster()
		c.Spec.KubernetesVersion = "latest"
		spectest.AssertViolations(t, validation.Validate(&cluster.DigitalOceanKubernetesClusterStackInput{Target: c}),
			spectest.Violation{Field: "target.spec.kubernetes_version", Rule: "kubernetes_version.slug"})
	})
	t.Run("a provider config with an invalid api_url is rejected", func(t *testing.T) {
		in := &cluster.DigitalOceanKubernetesClusterStackInput{Target: validDigitalOceanKubernetesCluster(), ProviderConfig: &digitaloceanv1.DigitalOceanProviderConfig{ApiToken: "a-token-of-its-own", ApiUrl: "api.digitalocean.com/v2 "}}
		spectest.AssertViolations(t, validation.Validate(in), spectest.Violation{Field: "provider_config.api_url", Rule: "string.uri"})
	})
	t.Run("an api token never appears in a validation error", func(t *testing.T) {
		in := &cluster.DigitalOceanKubernetesClusterStackInput{ProviderConfig: &digitaloceanv1.DigitalOceanProviderConfig{ApiToken: "dop_v1_s3cr3t", ApiUrl: "::"}}
		err := validation.Validate(in)
		spectest.AssertViolations(t, err, spectest.Violation{Field: "target", Rule: "required"}, spectest.Violation{Field: "provider_config.api_url", Rule: "string.uri"})
		if strings.Contains(err.Error(), "dop_v1_s3cr3t") {
			t.Errorf("error leaks the token: %v", err)
		}
	})
}
