package diff_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	civoclusterkind "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/kind"
	civopoolkind "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/kind"
	doclusterkind "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/kind"
	dopoolkind "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/kind"

	ccv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	cpv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	dcv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	dpv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	dov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	civocluster "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/module"
	civopool "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/module"
	docluster "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/module"
	dopool "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/module"
	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/pulumi/program"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// kind is one program with the example every pair of the kind starts from.
type kind struct {
	name    string
	example string
	run     func(args []string, stdout, stderr *bytes.Buffer) int
	load    func(t *testing.T) proto.Message
}

func kindOf[T proto.Message](name, example string, newInput func() T, p program.Program[T]) kind {
	return kind{
		name:    name,
		example: filepath.Join("..", "..", "..", "examples", example),
		run: func(args []string, stdout, stderr *bytes.Buffer) int {
			a := &cli.App{Name: p.Name, Programs: []cli.Program{p}, Stdin: strings.NewReader(""), Stdout: stdout, Stderr: stderr}
			return a.Execute(a.ProgramCommand(), args)
		},
		load: func(t *testing.T) proto.Message {
			t.Helper()
			in := newInput()
			if err := stackinput.LoadFile(filepath.Join("..", "..", "..", "examples", example), in); err != nil {
				t.Fatal(err)
			}
			return in
		},
	}
}

var (
	civoCluster = kindOf("CivoKubernetesCluster", "civokubernetescluster/minimal.yaml", newCivoCluster,
		program.Program[*ccv1.CivoKubernetesClusterStackInput]{Name: "civokubernetescluster", NewInput: newCivoCluster, Resources: civocluster.Resources, Effects: civoclusterkind.Effects})
	civoPool = kindOf("CivoKubernetesNodePool", "civokubernetesnodepool/minimal.yaml", newCivoPool,
		program.Program[*cpv1.CivoKubernetesNodePoolStackInput]{Name: "civokubernetesnodepool", NewInput: newCivoPool, Resources: civopool.Resources, Effects: civopoolkind.Effects})
	doCluster = kindOf("DigitalOceanKubernetesCluster", "digitaloceankubernetescluster/minimal.yaml", newDOCluster,
		program.Program[*dcv1.DigitalOceanKubernetesClusterStackInput]{Name: "digitaloceankubernetescluster", NewInput: newDOCluster, Resources: docluster.Resources, Effects: doclusterkind.Effects})
	doPool = kindOf("DigitalOceanKubernetesNodePool", "digitaloceankubernetesnodepool/minimal.yaml", newDOPool,
		program.Program[*dpv1.DigitalOceanKubernetesNodePoolStackInput]{Name: "digitaloceankubernetesnodepool", NewInput: newDOPool, Resources: dopool.Resources, Effects: dopoolkind.Effects})
)

func newCivoCluster() *ccv1.CivoKubernetesClusterStackInput {
	return &ccv1.CivoKubernetesClusterStackInput{}
}
func newCivoPool() *cpv1.CivoKubernetesNodePoolStackInput {
	return &cpv1.CivoKubernetesNodePoolStackInput{}
}
func newDOCluster() *dcv1.DigitalOceanKubernetesClusterStackInput {
	return &dcv1.DigitalOceanKubernetesClusterStackInput{}
}
func newDOPool() *dpv1.DigitalOceanKubernetesNodePoolStackInput {
	return &dpv1.DigitalOceanKubernetesNodePoolStackInput{}
}

// Typed edits of each kind's stack input.
func cc(f func(*ccv1.CivoKubernetesClusterSpec)) func(proto.Message) {
	return func(m proto.Message) { f(m.(*ccv1.CivoKubernetesClusterStackInput).Target.Spec) }
}
func cp(f func(*cpv1.CivoKubernetesNodePoolSpec)) func(proto.Message) {
	return func(m proto.Message) { f(m.(*cpv1.CivoKubernetesNodePoolStackInput).Target.Spec) }
}
func dc(f func(*dcv1.DigitalOceanKubernetesClusterSpec)) func(proto.Message) {
	return func(m proto.Message) { f(m.(*dcv1.DigitalOceanKubernetesClusterStackInput).Target.Spec) }
}
func dp(f func(*dpv1.DigitalOceanKubernetesNodePoolSpec)) func(proto.Message) {
	return func(m proto.Message) { f(m.(*dpv1.DigitalOceanKubernetesNodePoolStackInput).Target.Spec) }
}

// metadata edits the metadata of any kind's stack input.
func metadata(f func(*sharedv1.CloudResourceMetadata)) func(proto.Message) {
	return func(m proto.Message) {
		target := stackinput.Target(m).ProtoReflect()
		f(target.Mutable(target.Descriptor().Fields().ByName("metadata")).Message().Interface().(*sharedv1.CloudResourceMetadata))
	}
}

// unprotected turns deletion protection off in a cluster kind's stack input, old and new alike.
func unprotected(m proto.Message) {
	switch in := m.(type) {
	case *ccv1.CivoKubernetesClusterStackInput:
		in.Target.Spec.DeletionProtection = proto.Bool(false)
	case *dcv1.DigitalOceanKubernetesClusterStackInput:
		in.Target.Spec.DeletionProtection = proto.Bool(false)
	}
}

func autoscaled(min, max int32) func(*dcv1.DigitalOceanKubernetesClusterSpec) {
	return func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
		s.DefaultNodePool.AutoScale, s.DefaultNodePool.MinNodes, s.DefaultNodePool.MaxNodes = true, min, max
	}
}

// pair is an OLD/NEW pair: both start from the kind's example; both get edit, then NEW gets
// change. The change at path must have effect, and diff must exit with exit.
type pair struct {
	name   string
	kind   kind
	edit   func(proto.Message)
	change func(proto.Message)
	args   []string
	path   string
	effect effects.Effect
	exit   int
	// invalid: the spec's rules refuse NEW before diff compares anything.
	invalid bool
}

var pairs = []pair{
	// DigitalOcean clusters: protected by default, so every replacement is refused.
	{name: "renaming a DigitalOcean cluster updates it", kind: doCluster, change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.ClusterName = "dev-fra1-b" }),
		path: "spec.clusterName", effect: effects.Update},
	{name: "moving a protected DigitalOcean cluster to another region is refused", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.Region = dov1.DigitalOceanRegion_ams3 }),
		path:   "spec.region", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "moving an unprotected DigitalOcean cluster to another region replaces it", kind: doCluster, edit: unprotected,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.Region = dov1.DigitalOceanRegion_ams3 }),
		path:   "spec.region", effect: effects.Replace, exit: exitcode.Blocked},
	{name: "an intended replacement passes with --allow-replace", kind: doCluster, edit: unprotected, args: []string{"--allow-replace"},
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.Region = dov1.DigitalOceanRegion_ams3 }),
		path:   "spec.region", effect: effects.Replace},
	{name: "--allow-replace does not let a refused change through", kind: doCluster, args: []string{"--allow-replace"},
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.Region = dov1.DigitalOceanRegion_ams3 }),
		path:   "spec.region", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "raising the DigitalOcean version upgrades in place", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.KubernetesVersion = "1.32.2-do.0" }),
		path:   "spec.kubernetesVersion", effect: effects.Update},
	{name: "lowering the DigitalOcean version is refused, even unprotected: the provider would replace", kind: doCluster, edit: unprotected,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.KubernetesVersion = "1.30.9-do.1" }),
		path:   "spec.kubernetesVersion", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "with autoUpgrade a patch change is left to DigitalOcean", kind: doCluster,
		edit:   dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.AutoUpgrade = true }),
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.KubernetesVersion = "1.31" }),
		path:   "spec.kubernetesVersion", effect: effects.Ignored},
	{name: "with autoUpgrade a minor bump upgrades", kind: doCluster,
		edit:   dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.AutoUpgrade, s.KubernetesVersion = true, "1.31" }),
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.KubernetesVersion = "1.32" }),
		path:   "spec.kubernetesVersion", effect: effects.Update},
	{name: "joining a VPC replaces an unprotected DigitalOcean cluster", kind: doCluster, edit: unprotected,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.Vpc = sharedv1.StringValue("vpc-1") }),
		path:   "spec.vpc", effect: effects.Replace, exit: exitcode.Blocked},
	{name: "turning high availability on updates in place", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.HighlyAvailable = true }),
		path:   "spec.highlyAvailable", effect: effects.Update},
	{name: "turning high availability off is refused", kind: doCluster,
		edit:   dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.HighlyAvailable = true }),
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.HighlyAvailable = false }),
		path:   "spec.highlyAvailable", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "turning autoUpgrade on updates in place", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.AutoUpgrade = true }),
		path:   "spec.autoUpgrade", effect: effects.Update},
	{name: "turning surge upgrades off is refused: the provider's client never sends false", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DisableSurgeUpgrade = true }),
		path:   "spec.disableSurgeUpgrade", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "turning surge upgrades back on updates in place", kind: doCluster,
		edit:   dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DisableSurgeUpgrade = true }),
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DisableSurgeUpgrade = false }),
		path:   "spec.disableSurgeUpgrade", effect: effects.Update},
	{name: "removing the maintenance window moves it to the module's default in place", kind: doCluster,
		edit: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
			s.MaintenanceWindow = &dcv1.DigitalOceanKubernetesClusterMaintenanceWindow{Day: dcv1.DigitalOceanKubernetesClusterMaintenanceDay_sunday, StartTime: "03:00"}
		}),
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.MaintenanceWindow = nil }),
		path:   "spec.maintenanceWindow", effect: effects.Update},
	{name: "removing the routing agent is refused: the provider keeps an unsent setting", kind: doCluster,
		edit:   dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.RoutingAgent = proto.Bool(true) }),
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.RoutingAgent = nil }),
		path:   "spec.routingAgent", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "turning the routing agent off explicitly updates in place", kind: doCluster,
		edit:   dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.RoutingAgent = proto.Bool(true) }),
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.RoutingAgent = proto.Bool(false) }),
		path:   "spec.routingAgent", effect: effects.Update},
	{name: "removing the NVIDIA GPU plugin setting is refused", kind: doCluster,
		edit:   dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.NvidiaGpuDevicePlugin = proto.Bool(false) }),
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.NvidiaGpuDevicePlugin = nil }),
		path:   "spec.nvidiaGpuDevicePlugin", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "removing the VPC of an unprotected cluster is refused: the provider keeps it", kind: doCluster,
		edit: func(m proto.Message) {
			unprotected(m)
			dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.Vpc = sharedv1.StringValue("vpc-1") })(m)
		},
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.Vpc = nil }),
		path:   "spec.vpc", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "removing the pod subnet is refused: the provider keeps it", kind: doCluster,
		edit:   dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.ClusterSubnet = "10.244.0.0/16" }),
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.ClusterSubnet = "" }),
		path:   "spec.clusterSubnet", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "a jump of two DigitalOcean minor versions is refused", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.KubernetesVersion = "1.33.1-do.0" }),
		path:   "spec.kubernetesVersion", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "with autoUpgrade a jump of two minor lines is refused", kind: doCluster,
		edit:   dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.AutoUpgrade, s.KubernetesVersion = true, "1.31" }),
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.KubernetesVersion = "1.33" }),
		path:   "spec.kubernetesVersion", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "a maintenance window updates in place", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
			s.MaintenanceWindow = &dcv1.DigitalOceanKubernetesClusterMaintenanceWindow{Day: dcv1.DigitalOceanKubernetesClusterMaintenanceDay_sunday, StartTime: "03:00"}
		}),
		path: "spec.maintenanceWindow", effect: effects.Update},
	{name: "registry integration updates in place", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.RegistryIntegration = true }),
		path:   "spec.registryIntegration", effect: effects.Update},
	{name: "control-plane firewall addresses update in place", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
			s.ControlPlaneFirewallAllowedAddresses = []string{"203.0.113.7"}
		}),
		path: "spec.controlPlaneFirewallAllowedAddresses", effect: effects.Update},
	{name: "a pod subnet replaces an unprotected DigitalOcean cluster", kind: doCluster, edit: unprotected,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.ClusterSubnet = "10.244.0.0/16" }),
		path:   "spec.clusterSubnet", effect: effects.Replace, exit: exitcode.Blocked},
	{name: "a service subnet on a protected DigitalOcean cluster is refused", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.ServiceSubnet = "10.245.0.0/16" }),
		path:   "spec.serviceSubnet", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "the kubeconfig lifetime updates the state", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.KubeconfigExpireSeconds = 86400 }),
		path:   "spec.kubeconfigExpireSeconds", effect: effects.Update},
	{name: "destroyAllAssociatedResources updates the state", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DestroyAllAssociatedResources = true }),
		path:   "spec.destroyAllAssociatedResources", effect: effects.Update},
	{name: "autoscaler tuning updates in place", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
			s.ClusterAutoscaler = &dcv1.DigitalOceanKubernetesClusterAutoscaler{ScaleDownUnneededTime: "10m"}
		}),
		path: "spec.clusterAutoscaler", effect: effects.Update},
	{name: "renaming the default pool updates in place", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DefaultNodePool.NodePoolName = "system" }),
		path:   "spec.defaultNodePool.nodePoolName", effect: effects.Update},
	{name: "resizing the default pool of a protected cluster is refused", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DefaultNodePool.Size = "s-4vcpu-8gb" }),
		path:   "spec.defaultNodePool.size", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "resizing the default pool of an unprotected cluster replaces the cluster", kind: doCluster, edit: unprotected,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DefaultNodePool.Size = "s-4vcpu-8gb" }),
		path:   "spec.defaultNodePool.size", effect: effects.Replace, exit: exitcode.Blocked},
	{name: "scaling the default pool updates in place", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DefaultNodePool.NodeCount = 3 }),
		path:   "spec.defaultNodePool.nodeCount", effect: effects.Update},
	{name: "an autoscaled default pool's count is left to the autoscaler", kind: doCluster, edit: dc(autoscaled(1, 5)),
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DefaultNodePool.NodeCount = 3 }),
		path:   "spec.defaultNodePool.nodeCount", effect: effects.Ignored},
	{name: "turning autoscaling on updates the default pool in place", kind: doCluster,
		change: dc(autoscaled(1, 5)), path: "spec.defaultNodePool.autoScale", effect: effects.Update},
	{name: "autoscaling bounds update in place", kind: doCluster, edit: dc(autoscaled(1, 5)),
		change: dc(autoscaled(1, 6)), path: "spec.defaultNodePool.maxNodes", effect: effects.Update},
	{name: "a lower autoscaling bound updates in place", kind: doCluster, edit: dc(autoscaled(1, 5)),
		change: dc(autoscaled(2, 5)), path: "spec.defaultNodePool.minNodes", effect: effects.Update},
	{name: "default pool labels update in place", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
			s.DefaultNodePool.Labels = map[string]string{"workload": "system"}
		}),
		path: "spec.defaultNodePool.labels", effect: effects.Update},
	{name: "removing one of two default pool labels updates in place", kind: doCluster,
		edit: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
			s.DefaultNodePool.Labels = map[string]string{"workload": "system", "tier": "one"}
		}),
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { delete(s.DefaultNodePool.Labels, "tier") }),
		path:   "spec.defaultNodePool.labels", effect: effects.Update},
	{name: "clearing the default pool's labels is refused: an empty map is never sent", kind: doCluster,
		edit: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
			s.DefaultNodePool.Labels = map[string]string{"workload": "system"}
		}),
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DefaultNodePool.Labels = nil }),
		path:   "spec.defaultNodePool.labels", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "default pool taints update in place", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
			s.DefaultNodePool.Taints = []*sharedv1.Taint{{Key: "dedicated", Effect: sharedv1.TaintEffect_NoSchedule}}
		}),
		path: "spec.defaultNodePool.taints", effect: effects.Update},
	{name: "default pool tags update in place", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DefaultNodePool.Tags = []string{"pool-system"} }),
		path:   "spec.defaultNodePool.tags", effect: effects.Update},
	{name: "cluster tags update in place", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.Tags = []string{"team-platform"} }),
		path:   "spec.tags", effect: effects.Update},
	{name: "the routing agent updates in place", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.RoutingAgent = proto.Bool(true) }),
		path:   "spec.routingAgent", effect: effects.Update},
	{name: "the NVIDIA GPU plugin updates in place", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.NvidiaGpuDevicePlugin = proto.Bool(false) }),
		path:   "spec.nvidiaGpuDevicePlugin", effect: effects.Update},
	{name: "the AMD GPU plugin updates in place", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.AmdGpuDevicePlugin = proto.Bool(true) }),
		path:   "spec.amdGpuDevicePlugin", effect: effects.Update},
	{name: "the AMD GPU metrics exporter updates in place", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
			s.AmdGpuDeviceMetricsExporterPlugin = proto.Bool(true)
		}),
		path: "spec.amdGpuDeviceMetricsExporterPlugin", effect: effects.Update},
	{name: "the RDMA plugin updates in place", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.RdmaSharedDevicePlugin = proto.Bool(true) }),
		path:   "spec.rdmaSharedDevicePlugin", effect: effects.Update},
	{name: "turning deletion protection off updates the state only", kind: doCluster, change: unprotected,
		path: "spec.deletionProtection", effect: effects.Update},
	{name: "renaming a protected DigitalOcean cluster's manifest is refused", kind: doCluster,
		change: metadata(func(m *sharedv1.CloudResourceMetadata) { m.Name = "dev-fra1-b" }),
		path:   "metadata.name", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "metadata labels update the derived tags", kind: doCluster,
		change: metadata(func(m *sharedv1.CloudResourceMetadata) { m.Labels = map[string]string{"team": "platform"} }),
		path:   "metadata.labels", effect: effects.Update},
	{name: "annotations are not sent to the cloud", kind: doCluster,
		change: metadata(func(m *sharedv1.CloudResourceMetadata) { m.Annotations = map[string]string{"owner": "x"} }),
		path:   "metadata.annotations", effect: effects.Ignored},
	{name: "a new API token updates the provider", kind: doCluster,
		change: func(m proto.Message) {
			m.(*dcv1.DigitalOceanKubernetesClusterStackInput).ProviderConfig = &dov1.DigitalOceanProviderConfig{ApiToken: "tok-SENTINEL-DIFF"}
		},
		path: "providerConfig.apiToken", effect: effects.Update},

	// DigitalOcean node pools.
	{name: "renaming a DigitalOcean pool updates it", kind: doPool,
		change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.NodePoolName = "apps" }),
		path:   "spec.nodePoolName", effect: effects.Update},
	{name: "moving a DigitalOcean pool to another cluster replaces it", kind: doPool,
		change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.Cluster = sharedv1.StringValue("other-cluster") }),
		path:   "spec.cluster", effect: effects.Replace, exit: exitcode.Blocked},
	{name: "resizing a DigitalOcean pool replaces the pool", kind: doPool,
		change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.Size = "s-8vcpu-16gb" }),
		path:   "spec.size", effect: effects.Replace, exit: exitcode.Blocked},
	{name: "allowing a DigitalOcean pool to rotate sends nothing", kind: doPool,
		change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.Rollout = rotate() }),
		path:   "spec.rollout", effect: effects.Ignored},
	{name: "allowing a Civo pool to rotate sends nothing", kind: civoPool,
		change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.Rollout = rotate() }),
		path:   "spec.rollout", effect: effects.Ignored},
	{name: "allowing the DigitalOcean default pool to rotate sends nothing", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.DefaultNodePool.Rollout = rotate() }),
		path:   "spec.defaultNodePool.rollout", effect: effects.Ignored},
	{name: "resizing a DigitalOcean pool that allows rotation rotates it", kind: doPool,
		change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.Size = "s-8vcpu-16gb"; s.Rollout = rotate() }),
		path:   "spec.size", effect: effects.Rotate},
	{name: "a rotation needing more surge nodes than maxSurge allows stays a replacement", kind: doPool,
		change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) {
			s.Size, s.Rollout = "s-8vcpu-16gb", &sharedv1.Rollout{Strategy: sharedv1.RolloutStrategy_ROTATE, MaxSurge: 1}
		}),
		path: "spec.size", effect: effects.Replace, exit: exitcode.Blocked},
	{name: "a rollout of strategy NONE keeps the replacement refused", kind: doPool,
		change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) {
			s.Size, s.Rollout = "s-8vcpu-16gb", &sharedv1.Rollout{Strategy: sharedv1.RolloutStrategy_NONE}
		}),
		path: "spec.size", effect: effects.Replace, exit: exitcode.Blocked},
	{name: "removing every label of a DigitalOcean pool that allows rotation rotates it", kind: doPool,
		edit:   dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.Labels = map[string]string{"workload": "batch"} }),
		change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.Labels = nil; s.Rollout = rotate() }),
		path:   "spec.labels", effect: effects.Rotate},
	{name: "resizing the default pool of a protected cluster that allows rotation rotates the pool", kind: doCluster,
		change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) {
			s.DefaultNodePool.Size, s.DefaultNodePool.Rollout = "s-4vcpu-8gb", rotate()
		}),
		path: "spec.defaultNodePool.size", effect: effects.Rotate},
	{name: "resizing a Civo pool that allows rotation rotates it", kind: civoPool,
		change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.Size = "g4s.kube.large"; s.Rollout = rotate() }),
		path:   "spec.size", effect: effects.Rotate},
	{name: "moving a Civo pool that allows rotation to another region is still refused", kind: civoPool,
		change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.Region = civov1.CivoRegion_lon1; s.Rollout = rotate() }),
		path:   "spec.region", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "scaling a DigitalOcean pool updates it", kind: doPool,
		change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.NodeCount = 4 }),
		path:   "spec.nodeCount", effect: effects.Update},
	{name: "an autoscaled DigitalOcean pool's count is left to the autoscaler", kind: doPool,
		edit:   dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.AutoScale, s.MinNodes, s.MaxNodes = true, 1, 5 }),
		change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.NodeCount = 4 }),
		path:   "spec.nodeCount", effect: effects.Ignored},
	{name: "autoscaling a DigitalOcean pool updates it", kind: doPool,
		change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.AutoScale, s.MinNodes, s.MaxNodes = true, 1, 5 }),
		path:   "spec.autoScale", effect: effects.Update},
	{name: "a DigitalOcean pool's bounds update it", kind: doPool,
		edit:   dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.AutoScale, s.MinNodes, s.MaxNodes = true, 1, 5 }),
		change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.MinNodes = 2 }),
		path:   "spec.minNodes", effect: effects.Update},
	{name: "a DigitalOcean pool's upper bound updates it", kind: doPool,
		edit:   dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.AutoScale, s.MinNodes, s.MaxNodes = true, 1, 5 }),
		change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.MaxNodes = 6 }),
		path:   "spec.maxNodes", effect: effects.Update},
	{name: "a DigitalOcean pool's labels update it", kind: doPool,
		change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.Labels = map[string]string{"workload": "apps"} }),
		path:   "spec.labels", effect: effects.Update},
	{name: "clearing a DigitalOcean pool's labels is refused: an empty map is never sent", kind: doPool,
		edit:   dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.Labels = map[string]string{"workload": "apps"} }),
		change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.Labels = nil }),
		path:   "spec.labels", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "a DigitalOcean pool's taints update it", kind: doPool,
		change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) {
			s.Taints = []*sharedv1.Taint{{Key: "gpu", Effect: sharedv1.TaintEffect_NoSchedule}}
		}),
		path: "spec.taints", effect: effects.Update},
	{name: "a DigitalOcean pool's tags update it", kind: doPool,
		change: dp(func(s *dpv1.DigitalOceanKubernetesNodePoolSpec) { s.Tags = []string{"apps"} }),
		path:   "spec.tags", effect: effects.Update},
	{name: "renaming a DigitalOcean pool's manifest replaces the pool", kind: doPool,
		change: metadata(func(m *sharedv1.CloudResourceMetadata) { m.Name = "dev-fra1-apps" }),
		path:   "metadata.name", effect: effects.Replace, exit: exitcode.Blocked},

	// Civo clusters: nothing replaces; what cannot change is refused.
	{name: "renaming a Civo cluster updates it", kind: civoCluster,
		change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.ClusterName = "dev-fra1-b" }),
		path:   "spec.clusterName", effect: effects.Update},
	{name: "moving a Civo cluster to another region is refused", kind: civoCluster, edit: unprotected,
		change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.Region = civov1.CivoRegion_lon1 }),
		path:   "spec.region", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "upgrading a Civo cluster updates it", kind: civoCluster,
		change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.KubernetesVersion = "1.31.2-k3s1" }),
		path:   "spec.kubernetesVersion", effect: effects.Update},
	{name: "lowering a Civo cluster's version is refused", kind: civoCluster,
		change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.KubernetesVersion = "1.29.9-k3s1" }),
		path:   "spec.kubernetesVersion", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "changing a Civo cluster's type is refused", kind: civoCluster,
		change: cc(func(s *ccv1.CivoKubernetesClusterSpec) {
			s.ClusterType, s.KubernetesVersion = ccv1.CivoKubernetesClusterType_talos, "talos-v1.5.0"
		}),
		path: "spec.clusterType", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "changing a Civo cluster's CNI is refused", kind: civoCluster,
		change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.Cni = ccv1.CivoKubernetesClusterCni_cilium }),
		path:   "spec.cni", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "adding Civo applications is refused", kind: civoCluster,
		change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.Applications = []string{"metrics-server"} }),
		path:   "spec.applications", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "moving a Civo cluster to another network is refused", kind: civoCluster,
		change: cc(func(s *ccv1.CivoKubernetesClusterSpec) {
			s.Network = sharedv1.StringValue("0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5")
		}),
		path: "spec.network", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "putting a Civo cluster behind a given firewall updates it", kind: civoCluster,
		change: cc(func(s *ccv1.CivoKubernetesClusterSpec) {
			s.Firewall = sharedv1.StringValue("5d7e9f10-2a3b-4c5d-8e6f-7a8b9c0d1e2f")
		}),
		path: "spec.firewall", effect: effects.Update},
	{name: "the API server's allowed CIDRs update the firewall", kind: civoCluster,
		change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.ApiServerAllowedCidrs = []string{"203.0.113.0/24"} }),
		path:   "spec.apiServerAllowedCidrs", effect: effects.Update},
	{name: "resizing a Civo default pool is refused", kind: civoCluster,
		change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.DefaultNodePool.Size = "g4s.kube.large" }),
		path:   "spec.defaultNodePool.size", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "scaling a Civo default pool updates it", kind: civoCluster,
		change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.DefaultNodePool.NodeCount = 3 }),
		path:   "spec.defaultNodePool.nodeCount", effect: effects.Update},
	{name: "Civo default pool labels are refused by the spec's rules already", kind: civoCluster,
		change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.DefaultNodePool.Labels = map[string]string{"a": "b"} }),
		path:   "spec.defaultNodePool.labels", invalid: true, exit: exitcode.Invalid},
	{name: "Civo default pool taints are refused by the spec's rules already", kind: civoCluster,
		change: cc(func(s *ccv1.CivoKubernetesClusterSpec) {
			s.DefaultNodePool.Taints = []*sharedv1.Taint{{Key: "a", Effect: sharedv1.TaintEffect_NoSchedule}}
		}),
		path: "spec.defaultNodePool.taints", invalid: true, exit: exitcode.Invalid},
	{name: "a Civo default pool's public IPs are refused", kind: civoCluster,
		change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.DefaultNodePool.PublicIpNodePool = true }),
		path:   "spec.defaultNodePool.publicIpNodePool", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "Civo cluster tags update it", kind: civoCluster,
		change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.Tags = []string{"team-platform"} }),
		path:   "spec.tags", effect: effects.Update},
	{name: "turning a Civo cluster's protection off updates the state only", kind: civoCluster, change: unprotected,
		path: "spec.deletionProtection", effect: effects.Update},
	{name: "renaming an unprotected Civo cluster's manifest alone is refused: Civo refuses a second cluster of the name", kind: civoCluster,
		edit: unprotected, change: metadata(func(m *sharedv1.CloudResourceMetadata) { m.Name = "dev-fra1-b" }),
		path: "metadata.name", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "renaming an unprotected Civo cluster's manifest and its cluster name replaces everything", kind: civoCluster,
		edit: unprotected, change: func(in proto.Message) {
			metadata(func(m *sharedv1.CloudResourceMetadata) { m.Name = "dev-fra1-b" })(in)
			in.(*ccv1.CivoKubernetesClusterStackInput).Target.Spec.ClusterName = "dev-fra1-b"
		},
		path: "metadata.name", effect: effects.Replace, exit: exitcode.Blocked},
	{name: "a Civo cluster's metadata env updates the derived tags", kind: civoCluster,
		change: metadata(func(m *sharedv1.CloudResourceMetadata) { m.Env = "dev" }),
		path:   "metadata.env", effect: effects.Update},

	// Civo node pools.
	{name: "renaming a Civo pool replaces it", kind: civoPool,
		change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.NodePoolName = "apps" }),
		path:   "spec.nodePoolName", effect: effects.Replace, exit: exitcode.Blocked},
	{name: "moving a Civo pool to another cluster replaces it", kind: civoPool,
		change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.Cluster = sharedv1.StringValue("other-cluster") }),
		path:   "spec.cluster", effect: effects.Replace, exit: exitcode.Blocked},
	{name: "moving a Civo pool to another region is refused: its cluster stays where it is", kind: civoPool,
		change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.Region = civov1.CivoRegion_lon1 }),
		path:   "spec.region", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "resizing a Civo pool replaces it", kind: civoPool,
		change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.Size = "g4s.kube.large" }),
		path:   "spec.size", effect: effects.Replace, exit: exitcode.Blocked},
	{name: "scaling a Civo pool updates it in place", kind: civoPool,
		change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.NodeCount = 5 }),
		path:   "spec.nodeCount", effect: effects.Update},
	{name: "an autoscaled Civo pool's count is left to the autoscaler", kind: civoPool,
		edit:   cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.AutoScale, s.MinNodes, s.MaxNodes = true, 1, 5 }),
		change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.NodeCount = 3 }),
		path:   "spec.nodeCount", effect: effects.Ignored},
	{name: "autoscaling a Civo pool changes only the module's handling", kind: civoPool,
		change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.AutoScale, s.MinNodes, s.MaxNodes = true, 1, 5 }),
		path:   "spec.autoScale", effect: effects.Update},
	{name: "a Civo pool's bounds are not sent", kind: civoPool,
		edit:   cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.AutoScale, s.MinNodes, s.MaxNodes = true, 1, 5 }),
		change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.MaxNodes = 6 }),
		path:   "spec.maxNodes", effect: effects.Ignored},
	{name: "a Civo pool's lower bound is not sent", kind: civoPool,
		edit:   cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.AutoScale, s.MinNodes, s.MaxNodes = true, 1, 5 }),
		change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.MinNodes = 2 }),
		path:   "spec.minNodes", effect: effects.Ignored},
	{name: "a Civo pool's labels update it", kind: civoPool,
		change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.Labels = map[string]string{"workload": "apps"} }),
		path:   "spec.labels", effect: effects.Update},
	{name: "clearing a Civo pool's labels updates it", kind: civoPool,
		edit:   cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.Labels = map[string]string{"workload": "apps"} }),
		change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.Labels = nil }),
		path:   "spec.labels", effect: effects.Update},
	{name: "clearing a Civo pool's taints updates it", kind: civoPool,
		edit: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) {
			s.Taints = []*sharedv1.Taint{{Key: "gpu", Effect: sharedv1.TaintEffect_NoSchedule}}
		}),
		change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.Taints = nil }),
		path:   "spec.taints", effect: effects.Update},
	{name: "a Civo pool's taints update it", kind: civoPool,
		change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) {
			s.Taints = []*sharedv1.Taint{{Key: "gpu", Effect: sharedv1.TaintEffect_NoSchedule}}
		}),
		path: "spec.taints", effect: effects.Update},
	{name: "a Civo pool's public IPs replace it", kind: civoPool,
		change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.PublicIpNodePool = true }),
		path:   "spec.publicIpNodePool", effect: effects.Replace, exit: exitcode.Blocked},
	{name: "a Civo pool's wait timeout bounds later changes only", kind: civoPool,
		change: cp(func(s *cpv1.CivoKubernetesNodePoolSpec) { s.WaitTimeoutMinutes = 40 }),
		path:   "spec.waitTimeoutMinutes", effect: effects.Ignored},
	{name: "a Civo pool's metadata labels are not sent: Civo pools have no tags", kind: civoPool,
		change: metadata(func(m *sharedv1.CloudResourceMetadata) { m.Labels = map[string]string{"team": "x"} }),
		path:   "metadata.labels", effect: effects.Ignored},
	{name: "renaming a Civo pool's manifest alone is refused: Civo refuses a second pool of the name", kind: civoPool,
		change: metadata(func(m *sharedv1.CloudResourceMetadata) { m.Name = "dev-fra1-apps" }),
		path:   "metadata.name", effect: effects.Refused, exit: exitcode.Blocked},
	{name: "renaming a Civo pool's manifest and its pool name replaces the pool", kind: civoPool,
		change: func(in proto.Message) {
			metadata(func(m *sharedv1.CloudResourceMetadata) { m.Name = "dev-fra1-apps" })(in)
			in.(*cpv1.CivoKubernetesNodePoolStackInput).Target.Spec.NodePoolName = "apps"
		},
		path: "metadata.name", effect: effects.Replace, exit: exitcode.Blocked},
}

// writeInput writes a stack input as JSON to a file in dir.
func writeInput(t *testing.T, dir, name string, m proto.Message) string {
	t.Helper()
	data, err := protojson.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// files writes OLD and NEW of a pair and returns their paths.
func (p pair) files(t *testing.T) (oldFile, newFile string) {
	t.Helper()
	oldInput := p.kind.load(t)
	if p.edit != nil {
		p.edit(oldInput)
	}
	newInput := proto.Clone(oldInput)
	p.change(newInput)
	dir := t.TempDir()
	return writeInput(t, dir, "old.json", oldInput), writeInput(t, dir, "new.json", newInput)
}

// run diffs OLD and NEW of a pair through its program and returns the JSON result and exit code.
func (p pair) run(t *testing.T) (*diff.Result, int, string) {
	t.Helper()
	oldFile, newFile := p.files(t)
	args := append([]string{"diff", oldFile, newFile, "-o", "json"}, p.args...)
	var stdout, stderr bytes.Buffer
	code := p.kind.run(args, &stdout, &stderr)
	var result diff.Result
	if code == exitcode.OK || code == exitcode.Blocked {
		if err := json.Unmarshal(stdout.Bytes(), &result); err != nil {
			t.Fatalf("diff -o json wrote %q: %v (stderr %q)", stdout.String(), err, stderr.String())
		}
	}
	return &result, code, stderr.String()
}

func TestDiffTellsWhatEachChangeDoesAndExitsAccordingly(t *testing.T) {
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			result, code, stderr := p.run(t)
			if code != p.exit {
				t.Errorf("exit = %d, want %d (stderr %q)", code, p.exit, stderr)
			}
			if p.invalid {
				if !strings.Contains(stderr, "civo/terraform-provider-civo#380") {
					t.Errorf("stderr = %q, want the violated rule", stderr)
				}
				return
			}
			// A pair may change more than one field (autoscaling comes with its bounds); the one
			// it is about must be there with its effect.
			var found bool
			replaces, refuses := false, false
			for _, c := range result.Changes {
				replaces = replaces || c.Effect == effects.Replace
				refuses = refuses || c.Effect == effects.Refused
				if c.Reason == "" || !strings.Contains(c.Resource, "::") {
					t.Errorf("change %s has reason %q and resource %q, want both", c.Path, c.Reason, c.Resource)
				}
				if c.Path != p.path {
					continue
				}
				found = true
				if c.Effect != p.effect {
					t.Errorf("%s: effect %s, want %s (%s)", c.Path, c.Effect, p.effect, c.Reason)
				}
			}
			if !found {
				t.Errorf("changes = %+v, want one at %s", result.Changes, p.path)
			}
			if result.Replaces != replaces || result.Refuses != refuses {
				t.Errorf("replaces = %t, refuses = %t; the changes say %t, %t", result.Replaces, result.Refuses, replaces, refuses)
			}
		})
	}
}

func TestEveryRowOfTheEffectsTableHasAPair(t *testing.T) {
	covered := map[string]bool{}
	for _, p := range pairs {
		covered[p.kind.name+" "+p.path] = true
	}
	for _, kind := range registry.Kinds().Tables() {
		for _, row := range kind.Rows {
			if !covered[kind.Name+" "+row.Path] && !strings.HasPrefix(row.Path, "providerConfig.") &&
				!strings.HasPrefix(row.Path, "metadata.") {
				t.Errorf("no OLD/NEW pair for %s %s", kind.Name, row.Path)
			}
		}
	}
}

func TestDiffNamesTheResourceTheChangeLandsOn(t *testing.T) {
	cases := []struct {
		pair pair
		want string
	}{
		{pairs[0], "digitalocean:index/kubernetesCluster:KubernetesCluster::dev-fra1"},
		{pair{kind: civoCluster, change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.ApiServerAllowedCidrs = []string{"203.0.113.0/24"} })},
			"civo:index/firewall:Firewall::dev-fra1"},
		{pair{kind: doCluster, change: func(m proto.Message) {
			m.(*dcv1.DigitalOceanKubernetesClusterStackInput).ProviderConfig = &dov1.DigitalOceanProviderConfig{ApiToken: "dop-token-of-another-key"}
		}}, "pulumi:providers:digitalocean::dev-fra1"},
	}
	for _, c := range cases {
		result, _, _ := c.pair.run(t)
		if len(result.Changes) != 1 || result.Changes[0].Resource != c.want {
			t.Errorf("changes = %+v, want one on %s", result.Changes, c.want)
		}
	}
}

func TestDiffShowsSecretsAsSecretAndNeverTheirValue(t *testing.T) {
	p := pair{kind: doCluster, edit: func(m proto.Message) {
		m.(*dcv1.DigitalOceanKubernetesClusterStackInput).ProviderConfig = &dov1.DigitalOceanProviderConfig{ApiToken: "tok-SENTINEL-OLD"}
	}, change: func(m proto.Message) {
		m.(*dcv1.DigitalOceanKubernetesClusterStackInput).ProviderConfig.ApiToken = "tok-SENTINEL-NEW"
	}}
	oldFile, newFile := p.files(t)
	for _, format := range []string{"json", "text"} {
		var stdout, stderr bytes.Buffer
		p.kind.run([]string{"diff", oldFile, newFile, "-o", format}, &stdout, &stderr)
		out := stdout.String() + stderr.String()
		if strings.Contains(out, "SENTINEL") {
			t.Errorf("diff -o %s printed a token: %s", format, out)
		}
		if !strings.Contains(out, diff.Secret) {
			t.Errorf("diff -o %s does not show the change as %s: %s", format, diff.Secret, out)
		}
	}
}

func TestDiffOfIdenticalInputsSaysNoChangesAndExitsZero(t *testing.T) {
	p := pair{kind: doCluster, change: func(proto.Message) {}}
	result, code, _ := p.run(t)
	if code != exitcode.OK || len(result.Changes) != 0 || result.Replaces || result.Refuses {
		t.Errorf("exit %d, result %+v; want 0 and no changes", code, result)
	}
	var stdout, stderr bytes.Buffer
	code = p.kind.run([]string{"diff", p.kind.example, p.kind.example}, &stdout, &stderr)
	if code != exitcode.OK || stdout.String() != "no changes\n" {
		t.Errorf("text diff = %q, exit %d; want \"no changes\" and 0", stdout.String(), code)
	}
}

func TestDiffRejectsInvalidInputAndBadUsage(t *testing.T) {
	dir := t.TempDir()
	invalid := filepath.Join(dir, "invalid.yaml")
	if err := os.WriteFile(invalid, []byte("apiVersion: digitalocean.clusterplane.dev/v1\nkind: DigitalOceanKubernetesCluster\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want int
	}{
		{"an invalid NEW is invalid input", []string{"diff", doCluster.example, invalid}, exitcode.Invalid},
		{"another kind's manifest is invalid input", []string{"diff", doCluster.example, doPool.example}, exitcode.Invalid},
		{"a missing file is invalid input", []string{"diff", doCluster.example, filepath.Join(dir, "missing.yaml")}, exitcode.Invalid},
		{"one file is a usage error", []string{"diff", doCluster.example}, exitcode.Usage},
		{"three files are a usage error", []string{"diff", doCluster.example, doCluster.example, doCluster.example}, exitcode.Usage},
		{"an unknown format is a usage error", []string{"diff", doCluster.example, doCluster.example, "-o", "yaml"}, exitcode.Usage},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := doCluster.run(c.args, &stdout, &stderr); got != c.want {
				t.Errorf("exit = %d, want %d (stderr %q)", got, c.want, stderr.String())
			}
		})
	}
}

// rotate is a rollout block that allows rotation.
func rotate() *sharedv1.Rollout {
	return &sharedv1.Rollout{Strategy: sharedv1.RolloutStrategy_ROTATE}
}
