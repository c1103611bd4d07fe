package dopools

import (
	"context"

	"github.com/digitalocean/godo"
	"github.com/pkg/errors"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
)

// Spec is a pool as both DigitalOcean kinds' manifests write it: a node pool's spec, a cluster's
// spec.defaultNodePool.
type Spec interface {
	GetSize() string
	GetNodeCount() int32
	GetAutoScale() bool
	GetMinNodes() int32
	GetMaxNodes() int32
	GetLabels() map[string]string
	GetTaints() []*sharedv1.Taint
}

// Request is how a surge pool of s is created, as the kinds' modules create the pool: size, count
// or autoscaling bounds, labels, taints, and the tags the module gives it. Create sets its name.
func Request(s Spec, tags []string) godo.KubernetesNodePoolCreateRequest {
	req := godo.KubernetesNodePoolCreateRequest{
		Size:   s.GetSize(),
		Count:  int(s.GetNodeCount()),
		Tags:   tags,
		Labels: s.GetLabels(),
	}
	if s.GetAutoScale() {
		req.AutoScale, req.MinNodes, req.MaxNodes = true, int(s.GetMinNodes()), int(s.GetMaxNodes())
	}
	for _, t := range s.GetTaints() {
		req.Taints = append(req.Taints, godo.Taint{Key: t.GetKey(), Value: t.GetValue(), Effect: t.GetEffect().String()})
	}
	return req
}

// Nodes is how many nodes a new pool of s starts with, the Ready nodes a rotation waits for: its
// count, or its autoscaling minimum and at least one.
func Nodes(s Spec) int {
	if s.GetAutoScale() {
		return int(max(s.GetMinNodes(), 1))
	}
	return int(s.GetNodeCount())
}

// Kubeconfig is the cluster's kubeconfig, read from DigitalOcean's kubeconfig endpoint into
// memory: a rotation drains through it and never writes it to disk.
func (p Pools) Kubeconfig(ctx context.Context) ([]byte, error) {
	kc, _, err := p.Client.Kubernetes.GetKubeConfig(ctx, p.Cluster, nil)
	if err != nil {
		return nil, errors.Wrapf(err, "read the kubeconfig of DigitalOcean cluster %s", p.Cluster)
	}
	return kc.KubeconfigYAML, nil
}
