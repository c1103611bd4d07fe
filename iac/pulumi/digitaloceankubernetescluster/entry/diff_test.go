package entry_test

import (
	"strings"
	"testing"

	dcv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	dov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/entry"
	"github.com/clusterplane/clusterplane/internal/testing/diffpairs"
	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"google.golang.org/protobuf/proto"
)

// dc is a typed edit of the kind's spec.
var dc = diffpairs.Spec[*dcv1.DigitalOceanKubernetesClusterSpec]

// Every row of the kind's effects table has an OLD/NEW pair here, which diff must tell right.
func TestDiffTellsWhatEachChangeOfTheKindDoesAndExitsAccordingly(t *testing.T) {
	diffpairs.Check(t, entry.Kind(), pairs)
}

// unprotected turns deletion protection off, in OLD and NEW alike.
var unprotected = dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DeletionProtection = proto.Bool(false) })

func autoscaled(min, max int32) func(*dcv1.DigitalOceanKubernetesClusterSpec) {
	return func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
		s.DefaultNodePool.AutoScale, s.DefaultNodePool.MinNodes, s.DefaultNodePool.MaxNodes = true, min, max
	}
}

// pairs are the DigitalOcean clusters' OLD/NEW pairs: both start from examples/digitaloceankubernetescluster/minimal.yaml.
var pairs = []diffpairs.Pair{
	// DigitalOcean clusters: protected by default, so every replacement is refused.
	{Name: "renaming a DigitalOcean cluster updates it", Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.ClusterName = "dev-fra1-b" }),
		Path: "spec.clusterName", Effect: effects.Update},
	{Name: "moving a protected DigitalOcean cluster to another region is refused",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.Region = "ams3" }),
		Path:   "spec.region", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "moving an unprotected DigitalOcean cluster to another region replaces it", Edit: unprotected,
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.Region = "ams3" }),
		Path:   "spec.region", Effect: effects.Replace, Exit: exitcode.Blocked},
	{Name: "an intended replacement passes with --allow-replace", Edit: unprotected, Args: []string{"--allow-replace"},
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.Region = "ams3" }),
		Path:   "spec.region", Effect: effects.Replace},
	{Name: "--allow-replace does not let a refused change through", Args: []string{"--allow-replace"},
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.Region = "ams3" }),
		Path:   "spec.region", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "raising the DigitalOcean version upgrades in place",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.KubernetesVersion = "1.32.2-do.0" }),
		Path:   "spec.kubernetesVersion", Effect: effects.Update},
	{Name: "lowering the DigitalOcean version is refused, even unprotected: the provider would replace", Edit: unprotected,
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.KubernetesVersion = "1.30.9-do.1" }),
		Path:   "spec.kubernetesVersion", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "with autoUpgrade a patch change is left to DigitalOcean",
		Edit:   dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.AutoUpgrade = true }),
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.KubernetesVersion = "1.31" }),
		Path:   "spec.kubernetesVersion", Effect: effects.Ignored},
	{Name: "with autoUpgrade a minor bump upgrades",
		Edit:   dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.AutoUpgrade, s.KubernetesVersion = true, "1.31" }),
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.KubernetesVersion = "1.32" }),
		Path:   "spec.kubernetesVersion", Effect: effects.Update},
	{Name: "joining a VPC replaces an unprotected DigitalOcean cluster", Edit: unprotected,
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.Vpc = sharedv1.StringValue("vpc-1") }),
		Path:   "spec.vpc", Effect: effects.Replace, Exit: exitcode.Blocked},
	{Name: "turning high availability on updates in place",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.HighlyAvailable = true }),
		Path:   "spec.highlyAvailable", Effect: effects.Update},
	{Name: "turning high availability off is refused",
		Edit:   dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.HighlyAvailable = true }),
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.HighlyAvailable = false }),
		Path:   "spec.highlyAvailable", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "turning autoUpgrade on updates in place",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.AutoUpgrade = true }),
		Path:   "spec.autoUpgrade", Effect: effects.Update},
	{Name: "turning surge upgrades off is refused: the provider's client never sends false",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DisableSurgeUpgrade = true }),
		Path:   "spec.disableSurgeUpgrade", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "turning surge upgrades back on updates in place",
		Edit:   dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DisableSurgeUpgrade = true }),
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DisableSurgeUpgrade = false }),
		Path:   "spec.disableSurgeUpgrade", Effect: effects.Update},
	{Name: "removing the maintenance window moves it to the module's default in place",
		Edit: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
			s.MaintenanceWindow = &dcv1.DigitalOceanKubernetesClusterMaintenanceWindow{Day: dcv1.DigitalOceanKubernetesClusterMaintenanceDay_sunday, StartTime: "03:00"}
		}),
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.MaintenanceWindow = nil }),
		Path:   "spec.maintenanceWindow", Effect: effects.Update},
	{Name: "removing the routing agent is refused: the provider keeps an unsent setting",
		Edit:   dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.RoutingAgent = proto.Bool(true) }),
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.RoutingAgent = nil }),
		Path:   "spec.routingAgent", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "turning the routing agent off explicitly updates in place",
		Edit:   dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.RoutingAgent = proto.Bool(true) }),
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.RoutingAgent = proto.Bool(false) }),
		Path:   "spec.routingAgent", Effect: effects.Update},
	{Name: "removing the NVIDIA GPU plugin setting is refused",
		Edit:   dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.NvidiaGpuDevicePlugin = proto.Bool(false) }),
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.NvidiaGpuDevicePlugin = nil }),
		Path:   "spec.nvidiaGpuDevicePlugin", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "removing the VPC of an unprotected cluster is refused: the provider keeps it",
		Edit: func(m proto.Message) {
			unprotected(m)
			dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.Vpc = sharedv1.StringValue("vpc-1") })(m)
		},
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.Vpc = nil }),
		Path:   "spec.vpc", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "removing the pod subnet is refused: the provider keeps it",
		Edit:   dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.ClusterSubnet = "10.244.0.0/16" }),
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.ClusterSubnet = "" }),
		Path:   "spec.clusterSubnet", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "a jump of two DigitalOcean minor versions is refused",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.KubernetesVersion = "1.33.1-do.0" }),
		Path:   "spec.kubernetesVersion", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "with autoUpgrade a jump of two minor lines is refused",
		Edit:   dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.AutoUpgrade, s.KubernetesVersion = true, "1.31" }),
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.KubernetesVersion = "1.33" }),
		Path:   "spec.kubernetesVersion", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "a maintenance window updates in place",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
			s.MaintenanceWindow = &dcv1.DigitalOceanKubernetesClusterMaintenanceWindow{Day: dcv1.DigitalOceanKubernetesClusterMaintenanceDay_sunday, StartTime: "03:00"}
		}),
		Path: "spec.maintenanceWindow", Effect: effects.Update},
	{Name: "registry integration updates in place",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.RegistryIntegration = true }),
		Path:   "spec.registryIntegration", Effect: effects.Update},
	{Name: "control-plane firewall addresses update in place",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
			s.ControlPlaneFirewallAllowedAddresses = []string{"203.0.113.7"}
		}),
		Path: "spec.controlPlaneFirewallAllowedAddresses", Effect: effects.Update},
	{Name: "a pod subnet replaces an unprotected DigitalOcean cluster", Edit: unprotected,
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.ClusterSubnet = "10.244.0.0/16" }),
		Path:   "spec.clusterSubnet", Effect: effects.Replace, Exit: exitcode.Blocked},
	{Name: "a service subnet on a protected DigitalOcean cluster is refused",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.ServiceSubnet = "10.245.0.0/16" }),
		Path:   "spec.serviceSubnet", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "the kubeconfig lifetime updates the state",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.KubeconfigExpireSeconds = 86400 }),
		Path:   "spec.kubeconfigExpireSeconds", Effect: effects.Update},
	{Name: "destroyAllAssociatedResources updates the state",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DestroyAllAssociatedResources = true }),
		Path:   "spec.destroyAllAssociatedResources", Effect: effects.Update},
	{Name: "autoscaler tuning updates in place",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
			s.ClusterAutoscaler = &dcv1.DigitalOceanKubernetesClusterAutoscaler{ScaleDownUnneededTime: "10m"}
		}),
		Path: "spec.clusterAutoscaler", Effect: effects.Update},
	{Name: "renaming the default pool updates in place",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DefaultNodePool.NodePoolName = "system" }),
		Path:   "spec.defaultNodePool.nodePoolName", Effect: effects.Update},
	{Name: "resizing the default pool of a protected cluster is refused",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DefaultNodePool.Size = "s-4vcpu-8gb" }),
		Path:   "spec.defaultNodePool.size", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "resizing the default pool of an unprotected cluster replaces the cluster", Edit: unprotected,
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DefaultNodePool.Size = "s-4vcpu-8gb" }),
		Path:   "spec.defaultNodePool.size", Effect: effects.Replace, Exit: exitcode.Blocked},
	{Name: "scaling the default pool updates in place",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DefaultNodePool.NodeCount = 3 }),
		Path:   "spec.defaultNodePool.nodeCount", Effect: effects.Update},
	{Name: "an autoscaled default pool's count is left to the autoscaler", Edit: dc(autoscaled(1, 5)),
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DefaultNodePool.NodeCount = 3 }),
		Path:   "spec.defaultNodePool.nodeCount", Effect: effects.Ignored},
	{Name: "turning autoscaling on updates the default pool in place",
		Change: dc(autoscaled(1, 5)), Path: "spec.defaultNodePool.autoScale", Effect: effects.Update},
	{Name: "autoscaling bounds update in place", Edit: dc(autoscaled(1, 5)),
		Change: dc(autoscaled(1, 6)), Path: "spec.defaultNodePool.maxNodes", Effect: effects.Update},
	{Name: "a lower autoscaling bound updates in place", Edit: dc(autoscaled(1, 5)),
		Change: dc(autoscaled(2, 5)), Path: "spec.defaultNodePool.minNodes", Effect: effects.Update},
	{Name: "default pool labels update in place",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
			s.DefaultNodePool.Labels = map[string]string{"workload": "system"}
		}),
		Path: "spec.defaultNodePool.labels", Effect: effects.Update},
	{Name: "removing one of two default pool labels updates in place",
		Edit: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
			s.DefaultNodePool.Labels = map[string]string{"workload": "system", "tier": "one"}
		}),
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { delete(s.DefaultNodePool.Labels, "tier") }),
		Path:   "spec.defaultNodePool.labels", Effect: effects.Update},
	{Name: "clearing the default pool's labels is refused: an empty map is never sent",
		Edit: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
			s.DefaultNodePool.Labels = map[string]string{"workload": "system"}
		}),
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DefaultNodePool.Labels = nil }),
		Path:   "spec.defaultNodePool.labels", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "default pool taints update in place",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
			s.DefaultNodePool.Taints = []*sharedv1.Taint{{Key: "dedicated", Effect: sharedv1.TaintEffect_NoSchedule}}
		}),
		Path: "spec.defaultNodePool.taints", Effect: effects.Update},
	{Name: "default pool tags update in place",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DefaultNodePool.Tags = []string{"pool-system"} }),
		Path:   "spec.defaultNodePool.tags", Effect: effects.Update},
	{Name: "cluster tags update in place",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.Tags = []string{"team-platform"} }),
		Path:   "spec.tags", Effect: effects.Update},
	{Name: "the routing agent updates in place",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.RoutingAgent = proto.Bool(true) }),
		Path:   "spec.routingAgent", Effect: effects.Update},
	{Name: "the NVIDIA GPU plugin updates in place",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.NvidiaGpuDevicePlugin = proto.Bool(false) }),
		Path:   "spec.nvidiaGpuDevicePlugin", Effect: effects.Update},
	{Name: "the AMD GPU plugin updates in place",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.AmdGpuDevicePlugin = proto.Bool(true) }),
		Path:   "spec.amdGpuDevicePlugin", Effect: effects.Update},
	{Name: "the AMD GPU metrics exporter updates in place",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
			s.AmdGpuDeviceMetricsExporterPlugin = proto.Bool(true)
		}),
		Path: "spec.amdGpuDeviceMetricsExporterPlugin", Effect: effects.Update},
	{Name: "the RDMA plugin updates in place",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.RdmaSharedDevicePlugin = proto.Bool(true) }),
		Path:   "spec.rdmaSharedDevicePlugin", Effect: effects.Update},
	{Name: "turning deletion protection off updates the state only", Change: unprotected,
		Path: "spec.deletionProtection", Effect: effects.Update},
	{Name: "renaming a protected DigitalOcean cluster's manifest is refused",
		Change: diffpairs.Metadata(func(m *sharedv1.CloudResourceMetadata) { m.Name = "dev-fra1-b" }),
		Path:   "metadata.name", Effect: effects.Refused, Exit: exitcode.Blocked},
	{Name: "metadata labels update the derived tags",
		Change: diffpairs.Metadata(func(m *sharedv1.CloudResourceMetadata) { m.Labels = map[string]string{"team": "platform"} }),
		Path:   "metadata.labels", Effect: effects.Update},
	{Name: "annotations are not sent to the cloud",
		Change: diffpairs.Metadata(func(m *sharedv1.CloudResourceMetadata) { m.Annotations = map[string]string{"owner": "x"} }),
		Path:   "metadata.annotations", Effect: effects.Ignored},
	{Name: "a new API token updates the provider",
		Change: func(m proto.Message) {
			m.(*dcv1.DigitalOceanKubernetesClusterStackInput).ProviderConfig = &dov1.DigitalOceanProviderConfig{ApiToken: "tok-SENTINEL-DIFF"}
		},
		Path: "providerConfig.apiToken", Effect: effects.Update},
	{Name: "allowing the DigitalOcean default pool to rotate sends nothing",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DefaultNodePool.Rollout = diffpairs.Rotate() }),
		Path:   "spec.defaultNodePool.rollout", Effect: effects.Ignored},
	{Name: "resizing the default pool of a protected cluster that allows rotation rotates the pool",
		Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
			s.DefaultNodePool.Size, s.DefaultNodePool.Rollout = "s-4vcpu-8gb", diffpairs.Rotate()
		}),
		Path: "spec.defaultNodePool.size", Effect: effects.Rotate},
}

func TestAVPCSetForTheFirstTimeIsRefusedOfflineSayingPreviewAsksTheProvider(t *testing.T) {
	k := diffpairs.Of(entry.Kind())
	old := k.Load(t)
	written := proto.Clone(old)
	dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.Vpc = sharedv1.StringValue("vpc-1") })(written)
	moved := proto.Clone(written)
	dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.Vpc = sharedv1.StringValue("vpc-2") })(moved)
	tests := []struct {
		name     string
		from, to proto.Message
		says     bool
	}{
		{"unset, then written", old, written, true},
		{"one VPC, then another", written, moved, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := diff.Compare(k.Effects, tt.from, tt.to)
			if err != nil || len(r.Changes) != 1 || r.Changes[0].Effect != effects.Refused {
				t.Fatalf("%+v %v, want one refused change", r, err)
			}
			if got := strings.Contains(r.Changes[0].Reason, "preview and up, which ask it, deploy it"); got != tt.says {
				t.Errorf("the reason says preview asks the provider: %t, want %t: %s", got, tt.says, r.Changes[0].Reason)
			}
		})
	}
}
