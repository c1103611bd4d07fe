package digitalocean

import (
	"context"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
)

// PoolSpec is a pool as both DigitalOcean kinds' manifests write it: a node pool's spec, a cluster's
// spec.defaultNodePool.
type PoolSpec interface {
	GetSize() string
	GetNodeCount() int32
	GetAutoScale() bool
	GetMinNodes() int32
	GetMaxNodes() int32
	GetLabels() map[string]string
	GetTaints() []*sharedv1.Taint
}

// SurgePoolRequest is how a surge pool of s is created, as the kinds' modules create the pool: size, count
// or autoscaling bounds, labels, taints, and the tags the module gives it. Create sets its name.
func SurgePoolRequest(s PoolSpec, tags []string) PoolRequest {
	req := PoolRequest{
		Size:   s.GetSize(),
		Count:  s.GetNodeCount(),
		Tags:   tags,
		Labels: s.GetLabels(),
	}
	if s.GetAutoScale() {
		req.AutoScale, req.MinNodes, req.MaxNodes = true, s.GetMinNodes(), s.GetMaxNodes()
	}
	for _, t := range s.GetTaints() {
		req.Taints = append(req.Taints, Taint{Key: t.GetKey(), Value: t.GetValue(), Effect: t.GetEffect().String()})
	}
	return req
}

// PoolNodes is how many nodes a new pool of s starts with, the Ready nodes a rotation waits for: its
// count, or its autoscaling minimum and at least one.
func PoolNodes(s PoolSpec) int {
	if s.GetAutoScale() {
		return int(max(s.GetMinNodes(), 1))
	}
	return int(s.GetNodeCount())
}

// Kubeconfig is the cluster's kubeconfig, read from DigitalOcean's kubeconfig endpoint into
// memory by pkg/cloud/kubeconfig's rules: a rotation drains through it and never writes it to disk.
func (p Pools) Kubeconfig(ctx context.Context) ([]byte, error) {
	return p.Client.Kubeconfig(ctx, p.Cluster)
}
