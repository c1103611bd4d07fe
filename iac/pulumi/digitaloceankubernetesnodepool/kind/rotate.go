package kind

import (
	"context"
	"net/http"
	"time"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/module"
	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/labels"
	"github.com/clusterplane/clusterplane/pkg/pulumi/provider/digitaloceanprovider"
	"github.com/digitalocean/godo"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"
)

// How long the cloud may take with a rotation's pools, and how often it is asked.
const (
	readyTimeout = 20 * time.Minute
	goneTimeout  = 10 * time.Minute
)

// poll is how often a rotation asks DigitalOcean whether a pool's nodes run or a deleted pool is
// gone; a variable so that the package's tests need not wait.
var poll = 2 * time.Second

// rotate readies a rotation of the manifest's pool: godo against the API the provider config
// names (Resolve's rule, as the provider's), the cluster's kubeconfig from DigitalOcean's
// kubeconfig endpoint, in memory.
func rotate(ctx context.Context, in proto.Message, resolve kinds.Resolve) (*kinds.Rotation, error) {
	input := in.(*v1.DigitalOceanKubernetesNodePoolStackInput)
	spec := input.GetTarget().GetSpec()
	cluster, err := resolve(ctx, spec.GetCluster(), module.ClusterIDOutput)
	if err != nil {
		return nil, err
	}
	if cluster == "" {
		return nil, errors.New("the pool's cluster id is not known (its cluster's stack has no cluster_id output)")
	}
	client, err := digitaloceanprovider.Client(input.GetProviderConfig())
	if err != nil {
		return nil, errors.Wrap(err, "a DigitalOcean API client for the rotation")
	}
	kc, _, err := client.Kubernetes.GetKubeConfig(ctx, cluster, nil)
	if err != nil {
		return nil, errors.Wrapf(err, "read the kubeconfig of DigitalOcean cluster %s", cluster)
	}
	p := pools{client: client, cluster: cluster, input: input}
	nodes := spec.GetNodeCount()
	if spec.GetAutoScale() {
		nodes = max(spec.GetMinNodes(), 1)
	}
	r := spec.GetRollout()
	minutes := r.GetDrainTimeoutMinutes()
	if minutes == 0 {
		minutes = diff.DefaultDrainTimeoutMinutes
	}
	return &kinds.Rotation{
		Cloud:        p,
		NodeLabels:   "digitalocean",
		Kubeconfig:   kc.KubeconfigYAML,
		WaitRunning:  p.waitRunning,
		Nodes:        int(nodes),
		ReadyTimeout: readyTimeout,
		Drain:        rotation.DrainOptions{Timeout: time.Duration(minutes) * time.Minute, DeleteEmptyDirData: r.GetDeleteEmptyDirData()},
	}, nil
}

// pools is DigitalOcean's pool API for one cluster, as pkg/change/rotation asks it.
type pools struct {
	client  *godo.Client
	cluster string
	input   *v1.DigitalOceanKubernetesNodePoolStackInput
}

// named is the cluster's pool of that name, nil when there is none (names are unique in a cluster).
func (p pools) named(ctx context.Context, name string) (*godo.KubernetesNodePool, error) {
	opts := &godo.ListOptions{Page: 1, PerPage: 200}
	for {
		list, resp, err := p.client.Kubernetes.ListNodePools(ctx, p.cluster, opts)
		if err != nil {
			return nil, errors.Wrapf(err, "list the node pools of cluster %s", p.cluster)
		}
		for _, pool := range list {
			if pool.Name == name {
				return pool, nil
			}
		}
		if resp == nil || resp.Links == nil || resp.Links.IsLastPage() {
			return nil, nil
		}
		opts.Page++
	}
}

func (p pools) Find(ctx context.Context, name string) (string, error) {
	pool, err := p.named(ctx, name)
	if err != nil || pool == nil {
		return "", err
	}
	return pool.ID, nil
}

// Create creates the surge pool with the manifest's settings, as the module would: size, count
// or autoscaling bounds, labels, taints and the tags the module gives the pool.
func (p pools) Create(ctx context.Context, name string) (string, error) {
	spec := p.input.GetTarget().GetSpec()
	req := &godo.KubernetesNodePoolCreateRequest{
		Name:   name,
		Size:   spec.GetSize(),
		Count:  int(spec.GetNodeCount()),
		Tags:   labels.Tags(labels.Standard(module.Kind, p.input.GetTarget().GetMetadata()), spec.GetTags()),
		Labels: spec.GetLabels(),
	}
	if spec.GetAutoScale() {
		req.AutoScale, req.MinNodes, req.MaxNodes = true, int(spec.GetMinNodes()), int(spec.GetMaxNodes())
	}
	for _, t := range spec.GetTaints() {
		req.Taints = append(req.Taints, godo.Taint{Key: t.GetKey(), Value: t.GetValue(), Effect: t.GetEffect().String()})
	}
	pool, _, err := p.client.Kubernetes.CreateNodePool(ctx, p.cluster, req)
	if err != nil {
		return "", errors.Wrapf(err, "create node pool %s in cluster %s", name, p.cluster)
	}
	return pool.ID, nil
}

// Delete deletes the pool and waits until DigitalOcean no longer lists it, so that its name is
// free for the surge pool's rename.
func (p pools) Delete(ctx context.Context, id string) error {
	resp, err := p.client.Kubernetes.DeleteNodePool(ctx, p.cluster, id)
	if err != nil && !notFound(resp) {
		return errors.Wrapf(err, "delete node pool %s of cluster %s", id, p.cluster)
	}
	ctx, cancel := context.WithTimeout(ctx, goneTimeout)
	defer cancel()
	for {
		_, resp, err := p.client.Kubernetes.GetNodePool(ctx, p.cluster, id)
		if notFound(resp) {
			return nil
		}
		if err != nil && ctx.Err() == nil {
			return errors.Wrapf(err, "read node pool %s of cluster %s", id, p.cluster)
		}
		select {
		case <-ctx.Done():
			return errors.Errorf("node pool %s of cluster %s still listed %s after its delete", id, p.cluster, goneTimeout)
		case <-time.After(poll):
		}
	}
}

// Rename renames the pool in place; DigitalOcean's update takes the pool's count with its name.
func (p pools) Rename(ctx context.Context, id, name string) error {
	pool, _, err := p.client.Kubernetes.GetNodePool(ctx, p.cluster, id)
	if err != nil {
		return errors.Wrapf(err, "read node pool %s of cluster %s", id, p.cluster)
	}
	if pool.Name == name {
		return nil
	}
	count := pool.Count
	if _, _, err := p.client.Kubernetes.UpdateNodePool(ctx, p.cluster, id, &godo.KubernetesNodePoolUpdateRequest{Name: name, Count: &count}); err != nil {
		return errors.Wrapf(err, "rename node pool %s of cluster %s to %s", id, p.cluster, name)
	}
	return nil
}

// waitRunning waits until DigitalOcean reports every node of the pool named name running.
func (p pools) waitRunning(ctx context.Context, name string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	id := ""
	for {
		// The pool is found by name once, then read by id: DigitalOcean's answer for one pool is
		// what the provider itself polls.
		var pool *godo.KubernetesNodePool
		var err error
		if id == "" {
			if pool, err = p.named(ctx, name); pool != nil {
				id = pool.ID
			} else if err == nil {
				// Created before this wait began: gone means deleted outside clusterplane, and
				// waiting for it would only run out the timeout.
				return errors.Errorf("node pool %s of cluster %s is not in the cloud: deleted outside clusterplane? "+
					"Delete what is left of the rotation there, or put the pool back, before up again", name, p.cluster)
			}
		}
		if id != "" {
			pool, _, err = p.client.Kubernetes.GetNodePool(ctx, p.cluster, id)
		}
		if err != nil && ctx.Err() == nil {
			return errors.Wrapf(err, "read node pool %s of cluster %s", name, p.cluster)
		}
		if pool != nil && running(pool) {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Errorf("node pool %s of cluster %s: not every node running after %s", name, p.cluster, timeout)
		case <-time.After(poll):
		}
	}
}

// running tells whether every node of the pool runs, and it has its count of them.
func running(pool *godo.KubernetesNodePool) bool {
	if len(pool.Nodes) < pool.Count {
		return false
	}
	for _, n := range pool.Nodes {
		if n.Status == nil || n.Status.State != "running" {
			return false
		}
	}
	return true
}

func notFound(resp *godo.Response) bool {
	return resp != nil && resp.Response != nil && resp.StatusCode == http.StatusNotFound
}
