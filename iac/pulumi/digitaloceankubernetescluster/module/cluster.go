package module

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/pulumi/component"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi-digitalocean/sdk/v4/go/digitalocean"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func cluster(ctx *pulumi.Context, l *locals, v version, vpc pulumi.StringPtrInput, opts ...pulumi.ResourceOption) (*digitalocean.KubernetesCluster, error) {
	spec := l.spec
	args := &digitalocean.KubernetesClusterArgs{
		Name:    pulumi.String(spec.GetClusterName()),
		Region:  pulumi.String(spec.GetRegion()),
		Version: pulumi.String(v.send),
		VpcUuid: vpc,
		// Sent even when false so the provider's default never decides; HA can be turned on
		// but DigitalOcean rejects turning it off.
		Ha:                            pulumi.Bool(spec.GetHighlyAvailable()),
		AutoUpgrade:                   pulumi.Bool(spec.GetAutoUpgrade()),
		SurgeUpgrade:                  pulumi.Bool(!spec.GetDisableSurgeUpgrade()),
		RegistryIntegration:           pulumi.Bool(spec.GetRegistryIntegration()),
		DestroyAllAssociatedResources: pulumi.Bool(spec.GetDestroyAllAssociatedResources()),
		Tags:                          pulumi.ToStringArray(l.tags),
		NodePool:                      defaultNodePool(l),
	}
	// Always sent: the policy is Optional and Computed, so an unsent one keeps the window it had
	// and removing the field from a manifest would change nothing.
	day, start := DefaultMaintenanceDay, DefaultMaintenanceStart
	if w := spec.GetMaintenanceWindow(); w != nil {
		day, start = w.GetDay().String(), w.GetStartTime()
	}
	args.MaintenancePolicy = &digitalocean.KubernetesClusterMaintenancePolicyArgs{
		Day:       pulumi.String(day),
		StartTime: pulumi.String(start),
	}
	// Always sent: the block is optional and computed, so an omitted block keeps the firewall as it
	// was, and emptying the addresses would never turn it off.
	addrs := spec.GetControlPlaneFirewallAllowedAddresses()
	args.ControlPlaneFirewall = &digitalocean.KubernetesClusterControlPlaneFirewallArgs{
		Enabled:          pulumi.Bool(len(addrs) > 0),
		AllowedAddresses: pulumi.ToStringArray(addrs),
	}
	setComponents(args, spec)
	setNetworkAndAutoscaler(args, spec)
	// The SDK already registers kubeConfigs as a secret output; the module test holds it to that.
	// Protect makes the engine refuse to delete or replace the cluster: a replacing change (region,
	// VPC, subnets, default-pool size, lower version, rename) fails instead of taking the
	// workloads with it.
	ignore := l.ignoreChanges
	if v.ignore {
		// With auto_upgrade DigitalOcean moves the patch version on; undoing it would fight it.
		ignore = append([]string{"version"}, ignore...)
	}
	opts = append(opts, pulumi.IgnoreChanges(ignore), pulumi.Protect(l.protect))
	c, err := digitalocean.NewKubernetesCluster(ctx, l.name, args, opts...)
	return c, errors.Wrap(err, "create kubernetes cluster")
}

// setOutputs reads the component's outputs from the cluster resource cl.
func (c *Cluster) setOutputs(cl *digitalocean.KubernetesCluster) {
	// The SDK's Index panics on an empty list, which a failed or partial read can produce.
	kubeconfig := cl.KubeConfigs.ApplyT(func(ks []digitalocean.KubernetesClusterKubeConfig) digitalocean.KubernetesClusterKubeConfig {
		if len(ks) == 0 {
			return digitalocean.KubernetesClusterKubeConfig{}
		}
		return ks[0]
	}).(digitalocean.KubernetesClusterKubeConfigOutput)
	c.Resource = cl
	c.ClusterID = cl.ID().ToStringOutput()
	c.ClusterURN = cl.ClusterUrn
	c.APIServerEndpoint = cl.Endpoint
	c.IPv4Address = cl.Ipv4Address
	// Marked here as well as by the provider: mocks and derived outputs must not lose it.
	c.Kubeconfig = pulumi.ToSecret(kubeconfig.RawConfig().Elem()).(pulumi.StringOutput)
	// The provider marks all of kubeConfigs secret; the expiry time is not, and is what tells
	// users when to run `pulumi up --refresh`.
	c.KubeconfigExpiresAt = pulumi.Unsecret(kubeconfig.ExpiresAt().Elem()).(pulumi.StringOutput)
	c.DefaultNodePoolID = cl.NodePool.Id().Elem()
	c.VpcUUID = cl.VpcUuid
}

// setComponents sends the cluster's optional components the manifest sets. Components left
// absent keep DigitalOcean's default (on for clusters with GPU nodes).
func setComponents(args *digitalocean.KubernetesClusterArgs, spec *v1.DigitalOceanKubernetesClusterSpec) {
	if spec.RoutingAgent != nil {
		args.RoutingAgent = &digitalocean.KubernetesClusterRoutingAgentArgs{Enabled: pulumi.Bool(spec.GetRoutingAgent())}
	}
	if spec.NvidiaGpuDevicePlugin != nil {
		args.NvidiaGpuDevicePlugin = &digitalocean.KubernetesClusterNvidiaGpuDevicePluginArgs{Enabled: pulumi.Bool(spec.GetNvidiaGpuDevicePlugin())}
	}
	if spec.AmdGpuDevicePlugin != nil {
		args.AmdGpuDevicePlugin = &digitalocean.KubernetesClusterAmdGpuDevicePluginArgs{Enabled: pulumi.Bool(spec.GetAmdGpuDevicePlugin())}
	}
	if spec.AmdGpuDeviceMetricsExporterPlugin != nil {
		args.AmdGpuDeviceMetricsExporterPlugin = &digitalocean.KubernetesClusterAmdGpuDeviceMetricsExporterPluginArgs{
			Enabled: pulumi.Bool(spec.GetAmdGpuDeviceMetricsExporterPlugin()),
		}
	}
	if spec.RdmaSharedDevicePlugin != nil {
		args.RdmaSharedDevicePlugin = &digitalocean.KubernetesClusterRdmaSharedDevicePluginArgs{Enabled: pulumi.Bool(spec.GetRdmaSharedDevicePlugin())}
	}
}

// setNetworkAndAutoscaler sends the subnets, the kubeconfig's lifetime and the autoscaler's
// settings the manifest sets; what it leaves unset is DigitalOcean's to choose.
func setNetworkAndAutoscaler(args *digitalocean.KubernetesClusterArgs, spec *v1.DigitalOceanKubernetesClusterSpec) {
	if s := spec.GetClusterSubnet(); s != "" {
		args.ClusterSubnet = pulumi.String(s)
	}
	if s := spec.GetServiceSubnet(); s != "" {
		args.ServiceSubnet = pulumi.String(s)
	}
	if secs := spec.GetKubeconfigExpireSeconds(); secs > 0 {
		args.KubeconfigExpireSeconds = pulumi.Int(int(secs))
	}
	if a := spec.GetClusterAutoscaler(); a != nil {
		conf := digitalocean.KubernetesClusterClusterAutoscalerConfigurationArgs{}
		if a.ScaleDownUtilizationThreshold != nil {
			conf.ScaleDownUtilizationThreshold = pulumi.Float64(a.GetScaleDownUtilizationThreshold())
		}
		if t := a.GetScaleDownUnneededTime(); t != "" {
			conf.ScaleDownUnneededTime = pulumi.String(t)
		}
		if e := a.GetExpanders(); len(e) > 0 {
			conf.Expanders = pulumi.ToStringArray(e)
		}
		args.ClusterAutoscalerConfigurations = digitalocean.KubernetesClusterClusterAutoscalerConfigurationArray{conf}
	}
}

func defaultNodePool(l *locals) *digitalocean.KubernetesClusterNodePoolArgs {
	pool := l.spec.GetDefaultNodePool()
	args := &digitalocean.KubernetesClusterNodePoolArgs{
		Name:   pulumi.String(l.nodePoolName),
		Size:   pulumi.String(pool.GetSize()),
		Labels: pulumi.ToStringMap(pool.GetLabels()),
		Tags:   pulumi.ToStringArray(l.nodePoolTags),
		Taints: clusterTaints(pool.GetTaints()),
	}
	// Bounds only with autoscaling: the provider rejects them on a fixed-size pool.
	args.NodeCount, args.AutoScale, args.MinNodes, args.MaxNodes = component.PoolSize(pool)
	return args
}

func clusterTaints(taints []*sharedv1.Taint) digitalocean.KubernetesClusterNodePoolTaintArray {
	return component.Taints[digitalocean.KubernetesClusterNodePoolTaintArray](taints,
		func(key, value, effect string) digitalocean.KubernetesClusterNodePoolTaintInput {
			return digitalocean.KubernetesClusterNodePoolTaintArgs{Key: pulumi.String(key), Value: pulumi.String(value), Effect: pulumi.String(effect)}
		})
}
