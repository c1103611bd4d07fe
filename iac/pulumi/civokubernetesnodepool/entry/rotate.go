package entry

import (
	"context"
	"time"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/module"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	civopool "github.com/clusterplane/clusterplane/pkg/cloud/civo/pools"
	civoprovider "github.com/clusterplane/clusterplane/pkg/cloud/civo/pulumiprovider"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/kinds/componentkind"
	"github.com/pkg/errors"
)

// rotate readies a rotation of the manifest's pool, in cluster (the id componentkind.PoolRotate
// reads from the pool's cluster ref): Civo's pool API with the token and URL the clusterplane
// plugin would use, and the cluster's kubeconfig read from Civo into memory.
//
// A Civo pool's name is its id in its cluster (the plugin's Read, iac/pulumi/civokubernetesnodepool/poolresource,
// addresses it as CLUSTER_ID:POOL_NAME, as terraform-provider-civo v1.1.4's
// resource_kubernetes_cluster_nodepool.go, resourceKubernetesClusterNodePoolImport, parses
// "cluster_id:node_pool_id" and keeps the pool's id, which it created as the pool's label), and Civo renames
// no pool: the rotation creates pools of their final names, through a surge pool when the name
// stays (diff plans the hops), and never renames.
var rotate = componentkind.PoolRotate(func(ctx context.Context, input *v1.CivoKubernetesNodePoolStackInput, cluster string) (*kinds.Rotation, error) {
	spec := input.GetTarget().GetSpec()
	if spec.GetRegion() == "" {
		return nil, errors.New("the pool has no region: Civo's pool endpoints are per region")
	}
	ready, drain := kinds.RolloutWaits(spec.GetRollout())
	// The create waits until the cloud runs the new pool's nodes, within the ready timeout; the
	// cluster is asked after it whether they are Ready.
	client, err := civoprovider.Pools(input.GetProviderConfig(), spec.GetRegion(), civopool.WithWaitTimeout(ready),
		civopool.WithPollInterval(5*time.Second))
	if err != nil {
		return nil, errors.Wrap(err, "a Civo API client for the rotation")
	}
	// The new pools as the module makes the pool: size, count, labels, taints, public IPs.
	pool := civopool.Spec{ClusterID: cluster, Region: spec.GetRegion(), Size: spec.GetSize(), Count: int(spec.GetNodeCount()),
		Labels: module.Labels(ctx, spec), PublicIP: spec.GetPublicIpNodePool()}
	if spec.GetAutoScale() {
		// As diff plans it: an autoscaled pool starts at its minimum, the autoscaler grows it.
		pool.Count = int(max(spec.GetMinNodes(), 1))
	}
	for _, t := range spec.GetTaints() {
		pool.Taints = append(pool.Taints, civopool.Taint{Key: t.GetKey(), Value: t.GetValue(), Effect: t.GetEffect().String()})
	}
	return &kinds.Rotation{
		Cloud:      civo.Pools{Client: client, New: pool},
		NodeLabels: "civo",
		// Through the pool client, so the read has its token, URL, region, timeout and retries.
		Kubeconfig: func(ctx context.Context) ([]byte, error) { return civo.ReadKubeconfig(ctx, client.Read, cluster) },
		DeleteCommand: func(id string) string {
			return "civo kubernetes node-pool delete " + cluster + " " + id + " --region " + spec.GetRegion()
		},
		Nodes:        pool.Count,
		ReadyTimeout: ready,
		Drain:        drain,
		// The plugin reads CLUSTER_ID:POOL_NAME as that pool of that cluster, whatever name the
		// state held before (civopoolresource's Read).
		StateID: func(id string) string { return cluster + ":" + id },
	}, nil
})
