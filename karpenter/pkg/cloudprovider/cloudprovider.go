// Package cloudprovider is Karpenter's CloudProvider for the managed pools of the clouds in
// clouds' table. A NodeClaim's nodeClassRef kind names the cloud; its NodeClass names the cluster and sizes; the
// instance provider keeps its node in a marked pool of that cluster.
package cloudprovider

import (
	"context"
	stderrors "errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/awslabs/operatorpkg/status"
	v1 "github.com/clusterplane/clusterplane/karpenter/pkg/apis/v1"
	"github.com/clusterplane/clusterplane/karpenter/pkg/clouds"
	"github.com/clusterplane/clusterplane/karpenter/pkg/providers/instance"
	"github.com/clusterplane/clusterplane/karpenter/pkg/providers/instancetype"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
)

// AnnotationCluster is on each NodeClaim the provider launched: "<cloud>/<region>/<cluster id>",
// so a delete finds the node's cluster even after its NodeClass is gone.
const AnnotationCluster = v1.Group + "/cluster"

// Name is the provider's name as Karpenter's metrics and events say it.
const Name = "clusterplane"

// CloudProvider is Karpenter's cloudprovider.CloudProvider.
type CloudProvider struct {
	kube client.Client
	// clouds are the clouds with a token, by id.
	clouds        map[string]clouds.Cloud
	instanceTypes *instancetype.Provider
	instances     *instance.Provider
}

var _ cloudprovider.CloudProvider = (*CloudProvider)(nil)

// New is the provider over the clouds given (a cloud without a token is left out: its
// NodeClasses are never ready).
func New(kube client.Client, cs []clouds.Cloud, its *instancetype.Provider, is *instance.Provider) *CloudProvider {
	byName := map[string]clouds.Cloud{}
	for _, c := range cs {
		byName[c.Name()] = c
	}
	return &CloudProvider{kube: kube, clouds: byName, instanceTypes: its, instances: is}
}

// Cloud is the named cloud, nil when it has no token.
func (c *CloudProvider) Cloud(name string) clouds.Cloud { return c.clouds[name] }

// InstanceTypes is the instance-type provider, shared with the NodeClass controller.
func (c *CloudProvider) InstanceTypes() *instancetype.Provider { return c.instanceTypes }

// Instances is the instance provider, shared with garbage collection.
func (c *CloudProvider) Instances() *instance.Provider { return c.instances }

// Name is "clusterplane".
func (c *CloudProvider) Name() string { return Name }

// GetSupportedNodeClasses are every cloud's NodeClass, the table's first the default.
func (c *CloudProvider) GetSupportedNodeClasses() []status.Object {
	var out []status.Object
	for _, d := range clouds.Drivers() {
		out = append(out, d.NodeClass())
	}
	return out
}

// RepairPolicies replace a node whose kubelet has not been Ready for 10 minutes, as Karpenter's
// own providers do.
func (c *CloudProvider) RepairPolicies() []cloudprovider.RepairPolicy {
	return []cloudprovider.RepairPolicy{
		{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionFalse, TolerationDuration: 10 * time.Minute},
		{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionUnknown, TolerationDuration: 10 * time.Minute},
	}
}

// NewNodeClass is an empty NodeClass of kind, nil for a kind the provider does not serve.
func NewNodeClass(kind string) v1.NodeClass {
	d, err := clouds.ByKind(kind)
	if err != nil {
		return nil
	}
	return d.NodeClass()
}

// nodeClass reads the NodeClass ref names.
func (c *CloudProvider) nodeClass(ctx context.Context, ref *karpv1.NodeClassReference) (v1.NodeClass, error) {
	if ref == nil {
		return nil, fmt.Errorf("no nodeClassRef")
	}
	nc := NewNodeClass(ref.Kind)
	if nc == nil || (ref.Group != "" && ref.Group != v1.Group) {
		return nil, fmt.Errorf("nodeClassRef %s/%s is not a kind of %s", ref.Group, ref.Kind, v1.Group)
	}
	if err := c.kube.Get(ctx, types.NamespacedName{Name: ref.Name}, nc); err != nil {
		return nil, err
	}
	return nc, nil
}

// target is the cloud and cluster of a ready NodeClass.
func (c *CloudProvider) target(nc v1.NodeClass) (clouds.Cloud, clouds.Cluster, error) {
	if cond := nc.StatusConditions().Get(status.ConditionReady); cond == nil || !cond.IsTrue() {
		msg := "not ready"
		if cond != nil && cond.Message != "" {
			msg = cond.Message
		}
		return nil, clouds.Cluster{}, cloudprovider.NewNodeClassNotReadyError(stderrors.New(msg))
	}
	cloud := c.clouds[nc.Cloud()]
	if cloud == nil {
		return nil, clouds.Cluster{}, cloudprovider.NewNodeClassNotReadyError(fmt.Errorf("no %s token", nc.Cloud()))
	}
	st := nc.NodeClassStatus()
	return cloud, clouds.Cluster{ID: st.ClusterID, Region: st.Region, Running: true}, nil
}

// GetInstanceTypes are the sizes the NodePool's NodeClass selects, as instance types; none while
// the NodeClass is not ready.
func (c *CloudProvider) GetInstanceTypes(ctx context.Context, np *karpv1.NodePool) ([]*cloudprovider.InstanceType, error) {
	nc, err := c.nodeClass(ctx, np.Spec.Template.Spec.NodeClassRef)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return c.instanceTypesOf(ctx, nc)
}

func (c *CloudProvider) instanceTypesOf(ctx context.Context, nc v1.NodeClass) ([]*cloudprovider.InstanceType, error) {
	cloud, cluster, err := c.target(nc)
	if err != nil {
		return nil, nil
	}
	sizes, err := c.instanceTypes.Sizes(ctx, cloud, cluster.Region)
	if err != nil {
		return nil, err
	}
	return instancetype.InstanceTypes(cloud.Name(), instancetype.Select(sizes, nc.NodeClassSpec().SizeSelectorTerms), cluster.Region)
}

// cloudOf is the cloud whose providerID prefix providerID has.
func (c *CloudProvider) cloudOf(providerID string) clouds.Cloud {
	for _, cloud := range c.clouds {
		if strings.HasPrefix(providerID, cloud.ProviderIDPrefix()) {
			return cloud
		}
	}
	return nil
}

// clusters are the distinct clusters the NodeClasses of every cloud with a token name.
func (c *CloudProvider) clusters(ctx context.Context) (map[string][]clouds.Cluster, error) {
	out := map[string][]clouds.Cluster{}
	seen := map[string]bool{}
	add := func(cloud string, st v1.NodeClassStatus) {
		key := cloud + "/" + st.ClusterID
		if st.ClusterID == "" || seen[key] || c.clouds[cloud] == nil {
			return
		}
		seen[key] = true
		out[cloud] = append(out[cloud], clouds.Cluster{ID: st.ClusterID, Region: st.Region})
	}
	for _, d := range clouds.Drivers() {
		list := d.NodeClasses()
		if err := c.kube.List(ctx, list); err != nil {
			return nil, fmt.Errorf("list %ses: %w", d.Kind, err)
		}
		for _, nc := range list.NodeClasses() {
			add(d.ID, *nc.NodeClassStatus())
		}
	}
	return out, nil
}

// clusterOf reads a NodeClaim's cluster annotation.
func clusterOf(nc *karpv1.NodeClaim) (cloud string, cluster clouds.Cluster, ok bool) {
	parts := strings.SplitN(nc.Annotations[AnnotationCluster], "/", 3)
	if len(parts) != 3 || parts[2] == "" {
		return "", clouds.Cluster{}, false
	}
	return parts[0], clouds.Cluster{ID: parts[2], Region: parts[1]}, true
}

func withAnnotations(base map[string]string, add map[string]string) map[string]string {
	out := maps.Clone(base)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, add)
	return out
}
