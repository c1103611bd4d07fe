package cloudprovider

import (
	"context"
	"errors"
	"fmt"
	"maps"

	v1 "github.com/clusterplane/clusterplane/karpenter/pkg/apis/v1"
	"github.com/clusterplane/clusterplane/karpenter/pkg/clouds"
	"github.com/clusterplane/clusterplane/karpenter/pkg/providers/instance"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"
)

// Create adds the NodeClaim's node to the pool of the cheapest size its requirements allow.
func (c *CloudProvider) Create(ctx context.Context, claim *karpv1.NodeClaim) (*karpv1.NodeClaim, error) {
	nc, err := c.nodeClass(ctx, claim.Spec.NodeClassRef)
	if apierrors.IsNotFound(err) {
		return nil, cloudprovider.NewInsufficientCapacityError(fmt.Errorf("read the NodeClaim's NodeClass: %w", err))
	}
	if err != nil {
		return nil, fmt.Errorf("read the NodeClaim's NodeClass: %w", err)
	}
	cloud, cluster, err := c.target(nc)
	if err != nil {
		return nil, err
	}
	its, err := c.instanceTypesOf(ctx, nc)
	if err != nil {
		return nil, err
	}
	reqs := scheduling.NewNodeSelectorRequirementsWithMinValues(claim.Spec.Requirements...)
	var fit cloudprovider.InstanceTypes
	for _, it := range cloudprovider.InstanceTypes(its).Compatible(reqs) {
		if reqs.IsCompatible(it.Requirements, scheduling.AllowUndefinedWellKnownLabels) {
			fit = append(fit, it)
		}
	}
	if len(fit) == 0 {
		return nil, cloudprovider.NewInsufficientCapacityError(fmt.Errorf("no size of NodeClass %s fits the NodeClaim's requirements", nc.GetName()))
	}
	it := fit.OrderByPrice(reqs)[0]
	spec := nc.NodeClassSpec()
	labels := maps.Clone(spec.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[v1.LabelNodeClass] = nc.GetName()
	kind, err := clouds.KindOf(nc)
	if err != nil {
		return nil, err
	}
	pool := clouds.PoolSpec{Mark: clouds.Mark(kind, nc.GetName(), spec.Hash()), Size: it.Name, Labels: labels, Tags: spec.Tags}
	for _, t := range spec.Taints {
		pool.Taints = append(pool.Taints, clouds.Taint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)})
	}
	in, err := c.instances.Create(ctx, instance.Target{Cloud: cloud, Cluster: cluster, Spec: pool})
	if err != nil {
		return nil, cloudprovider.NewCreateError(err, "PoolGrowFailed", fmt.Sprintf("grow a %s pool: %v", it.Name, err))
	}
	out := c.toNodeClaim(cloud, cluster, in, it)
	out.Annotations = withAnnotations(out.Annotations, map[string]string{
		v1.AnnotationHash: spec.Hash(), v1.AnnotationHashVersion: v1.HashVersion})
	return out, nil
}

// toNodeClaim is a node as Karpenter's NodeClaim: its providerID, the instance type's single-valued
// requirements as labels, its capacity, and the cluster it is in. it is nil when the size is not
// one the provider offers now: the NodeClaim then has the size's name alone.
func (c *CloudProvider) toNodeClaim(cloud clouds.Cloud, cluster clouds.Cluster, in instance.Instance, it *cloudprovider.InstanceType) *karpv1.NodeClaim {
	labels := map[string]string{corev1.LabelInstanceTypeStable: in.Pool.Size}
	out := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{
		Name:        in.Node.Name,
		Labels:      labels,
		Annotations: map[string]string{AnnotationCluster: cloud.Name() + "/" + cluster.Region + "/" + cluster.ID},
	}}
	out.Status.ProviderID = in.Node.ProviderID
	out.Status.NodeName = in.Node.Name
	if it != nil {
		for key, req := range it.Requirements {
			if req.Len() == 1 && req.Operator() == corev1.NodeSelectorOpIn {
				labels[key] = req.Values()[0]
			}
		}
		out.Status.Capacity = it.Capacity
		out.Status.Allocatable = it.Allocatable()
	}
	return out
}

// Delete removes the NodeClaim's node; NodeClaimNotFoundError once no marked pool holds it, which
// is how Karpenter learns the delete is done.
func (c *CloudProvider) Delete(ctx context.Context, claim *karpv1.NodeClaim) error {
	id := claim.Status.ProviderID
	cloud := c.cloudOf(id)
	if cloud == nil {
		return cloudprovider.NewNodeClaimNotFoundError(fmt.Errorf("providerID %q is no cloud's this provider has a token for", id))
	}
	candidates := []clouds.Cluster{}
	if name, cl, ok := clusterOf(claim); ok && name == cloud.Name() {
		candidates = append(candidates, cl)
	} else {
		all, err := c.clusters(ctx)
		if err != nil {
			return err
		}
		candidates = all[cloud.Name()]
	}
	for _, cl := range candidates {
		err := c.instances.Delete(ctx, cloud, cl, id)
		if errors.Is(err, instance.ErrNotFound) || errors.Is(err, clouds.ErrClusterNotFound) {
			continue
		}
		return err
	}
	return cloudprovider.NewNodeClaimNotFoundError(fmt.Errorf("no marked pool holds %s", id))
}

// Get is the node with providerID, searched in the clusters of every NodeClass of its cloud.
func (c *CloudProvider) Get(ctx context.Context, providerID string) (*karpv1.NodeClaim, error) {
	cloud := c.cloudOf(providerID)
	if cloud == nil {
		return nil, cloudprovider.NewNodeClaimNotFoundError(fmt.Errorf("providerID %q is no cloud's this provider has a token for", providerID))
	}
	all, err := c.clusters(ctx)
	if err != nil {
		return nil, err
	}
	for _, cl := range all[cloud.Name()] {
		in, err := c.instances.Get(ctx, cloud, cl, providerID)
		if errors.Is(err, instance.ErrNotFound) || errors.Is(err, clouds.ErrClusterNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return c.toNodeClaim(cloud, cl, in, nil), nil
	}
	return nil, cloudprovider.NewNodeClaimNotFoundError(fmt.Errorf("no marked pool holds %s", providerID))
}

// List are the nodes of the marked pools of every NodeClass's cluster.
func (c *CloudProvider) List(ctx context.Context) ([]*karpv1.NodeClaim, error) {
	all, err := c.clusters(ctx)
	if err != nil {
		return nil, err
	}
	var out []*karpv1.NodeClaim
	for name, cls := range all {
		cloud := c.clouds[name]
		for _, cl := range cls {
			ins, err := c.instances.List(ctx, cloud, cl)
			if errors.Is(err, clouds.ErrClusterNotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			for _, in := range ins {
				out = append(out, c.toNodeClaim(cloud, cl, in, nil))
			}
		}
	}
	return out, nil
}

// The reasons IsDrifted gives.
const (
	DriftNodeClassChanged cloudprovider.DriftReason = "NodeClassHashChanged"
	DriftSizeNotSelected  cloudprovider.DriftReason = "SizeNotSelected"
)

// IsDrifted: the NodeClass's spec hash differs from the one the NodeClaim was launched with (of
// the same hash version), or its size terms no longer select the NodeClaim's size.
func (c *CloudProvider) IsDrifted(ctx context.Context, claim *karpv1.NodeClaim) (cloudprovider.DriftReason, error) {
	nc, err := c.nodeClass(ctx, claim.Spec.NodeClassRef)
	if apierrors.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if claim.Annotations[v1.AnnotationHashVersion] == v1.HashVersion &&
		claim.Annotations[v1.AnnotationHash] != "" && claim.Annotations[v1.AnnotationHash] != nc.NodeClassSpec().Hash() {
		return DriftNodeClassChanged, nil
	}
	sizes := nc.NodeClassStatus().Sizes
	size := claim.Labels[corev1.LabelInstanceTypeStable]
	if len(sizes) > 0 && size != "" && !contains(sizes, size) {
		return DriftSizeNotSelected, nil
	}
	return "", nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
