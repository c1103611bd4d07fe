package module

import (
	"fmt"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/pulumi/component"
	cpcivo "github.com/clusterplane/clusterplane/sdk/go/clusterplane/civo"
	cpshared "github.com/clusterplane/clusterplane/sdk/go/clusterplane/shared"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Types the previous releases registered the pool and its provider as (pulumi-civo's). Aliased,
// a stack deployed with them is taken over in place: the engine diffs the old state with the
// plugin, which updates rather than replaces, and nothing is deleted in Civo.
const (
	oldPoolType     = "civo:index/kubernetesNodePool:KubernetesNodePool"
	oldProviderType = "pulumi:providers:civo"
)

// nodePool creates the pool in the cluster of id clusterID with the clusterplane plugin, which
// scales it, changes its labels and taints in place and clears them. min_nodes and max_nodes are
// not sent: Civo keeps no bounds on a pool, the cluster autoscaler takes them as its --nodes flag.
func nodePool(ctx *pulumi.Context, name string, s *settings, spec *v1.CivoKubernetesNodePoolSpec,
	clusterID pulumi.StringOutput, opts []pulumi.ResourceOption) (*cpcivo.NodePool, error) {
	l := newLocals(ctx.Context(), name, spec)
	opts = append(opts, pulumi.Aliases(oldAliases(s, oldPoolType)))
	pool, err := cpcivo.NewNodePool(ctx, l.name, &cpcivo.NodePoolArgs{
		ClusterId:        clusterID,
		NodePoolName:     pulumi.String(spec.GetNodePoolName()),
		Region:           pulumi.StringPtr(spec.GetRegion()),
		Size:             pulumi.String(spec.GetSize()),
		NodeCount:        pulumi.IntPtr(int(spec.GetNodeCount())),
		AutoScale:        pulumi.BoolPtr(spec.GetAutoScale()),
		Labels:           pulumi.ToStringMap(l.labels),
		Taints:           taints(spec.GetTaints()),
		PublicIpNodePool: pulumi.BoolPtr(spec.GetPublicIpNodePool()),
	}, append(opts, waitTimeout(spec.GetWaitTimeoutMinutes())...)...)
	return pool, errors.Wrap(err, "create node pool")
}

// setOutputs reads the component's outputs from the pool resource.
func (np *NodePool) setOutputs(pool *cpcivo.NodePool) {
	np.Resource = pool
	np.NodePoolID = pool.ID().ToStringOutput()
	np.InstanceNames = pool.InstanceNames
}

func taints(taints []*sharedv1.Taint) cpshared.TaintArray {
	return component.Taints[cpshared.TaintArray](taints, func(key, value, effect string) cpshared.TaintInput {
		return cpshared.TaintArgs{Key: pulumi.String(key), Value: pulumi.StringPtr(value), Effect: cpshared.TaintEffect(effect)}
	})
}

// waitTimeout bounds how long the plugin waits for the pool's nodes: Pulumi hands a resource's
// custom timeouts to its provider with each create, update and delete. None leaves the plugin's
// default (pkg/cloud/civo/pools.DefaultWaitTimeout).
func waitTimeout(minutes int32) []pulumi.ResourceOption {
	if minutes <= 0 {
		return nil
	}
	d := fmt.Sprintf("%dm", minutes)
	return []pulumi.ResourceOption{pulumi.Timeouts(&pulumi.CustomTimeouts{Create: d, Update: d, Delete: d})}
}
