// Package nodeclass is the NodeClasses' controller: it checks a NodeClass against its cloud (the
// cluster exists and runs, the size terms select sizes the region offers), writes what it found
// in the status (the cluster's id and region, the sizes, the conditions Ready, ClusterReady and
// SizesResolved) and the spec's hash Karpenter's drift reads.
package nodeclass

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	v1 "github.com/clusterplane/clusterplane/karpenter/pkg/apis/v1"
	"github.com/clusterplane/clusterplane/karpenter/pkg/cloudprovider"
	"github.com/clusterplane/clusterplane/karpenter/pkg/clouds"
	"github.com/clusterplane/clusterplane/karpenter/pkg/providers/instancetype"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// How soon a NodeClass is checked again: a ready one as often as its sizes may change, one that
// is not sooner, so a cluster that starts running is seen.
const (
	ReadyRecheck    = 5 * time.Minute
	NotReadyRecheck = 30 * time.Second
)

// Controller reconciles one kind of NodeClass.
type Controller struct {
	Kube     client.Client
	Provider *cloudprovider.CloudProvider
	// Kind is DigitalOceanNodeClass or CivoNodeClass.
	Kind string
	// Readiness, when set, is told each NodeClass's Ready status once checked, and "" once it is
	// gone (the metrics count the NodeClasses by it).
	Readiness func(kind, name, ready string)
}

// Register adds the controller to the manager (operatorpkg's controller.Controller).
func (c *Controller) Register(_ context.Context, m manager.Manager) error {
	return builder.ControllerManagedBy(m).Named("nodeclass." + c.Kind).For(cloudprovider.NewNodeClass(c.Kind)).Complete(c)
}

// Reconcile reads the NodeClass, checks it and writes its status and hash annotation.
func (c *Controller) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	nc := cloudprovider.NewNodeClass(c.Kind)
	if err := c.Kube.Get(ctx, req.NamespacedName, nc); err != nil {
		if apierrors.IsNotFound(err) && c.Readiness != nil {
			c.Readiness(c.Kind, req.Name, "")
		}
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	before := nc.DeepCopyObject().(v1.NodeClass)
	// A cloud that could not be asked is in the conditions too (Check wrote them): the status is
	// written first, then the error returned, so it is logged and the class checked again.
	after, checkErr := Check(ctx, c.Provider, nc)
	// A patch writes the stored object back into nc, status included: the status found is kept
	// aside for the status patch after it.
	found := nc.NodeClassStatus().DeepCopy()
	if !equality.Semantic.DeepEqual(before.GetAnnotations(), nc.GetAnnotations()) {
		if err := c.Kube.Patch(ctx, nc, client.MergeFrom(before)); err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		*nc.NodeClassStatus() = *found
	}
	if !equality.Semantic.DeepEqual(before.NodeClassStatus(), nc.NodeClassStatus()) {
		if err := c.Kube.Status().Patch(ctx, nc, client.MergeFrom(before)); err != nil && !apierrors.IsNotFound(err) {
			return reconcile.Result{}, err
		}
	}
	if c.Readiness != nil {
		ready := "Unknown"
		if cond := nc.StatusConditions().Root(); cond != nil {
			ready = string(cond.Status)
		}
		c.Readiness(c.Kind, req.Name, ready)
	}
	if checkErr != nil {
		return reconcile.Result{}, checkErr
	}
	return reconcile.Result{RequeueAfter: after}, nil
}

// unreached writes what kept the cloud from answering into both conditions: a refused token
// (401, 403) or any other failure, with the error, which names the call and never the token.
func unreached(conds interface {
	SetFalse(string, string, string) bool
}, cloud string, err error) {
	reason := "CloudUnreachable"
	if s := cloudapi.StatusOf(err); s == http.StatusUnauthorized || s == http.StatusForbidden {
		reason = "Unauthorized"
	}
	msg := fmt.Sprintf("%s could not be asked: %v", cloud, err)
	conds.SetFalse(v1.ConditionClusterReady, reason, msg)
	conds.SetFalse(v1.ConditionSizesResolved, reason, msg)
}

// Check finds the NodeClass's cluster and sizes and writes them, with the conditions and the
// hash annotation, into nc; it returns when to check again. A failure to reach the cloud is an
// error and, so a user sees it with kubectl, the conditions' reason too (a Ready class whose token
// was revoked must not stay Ready); what the cloud says is wrong is a condition alone.
func Check(ctx context.Context, p *cloudprovider.CloudProvider, nc v1.NodeClass) (time.Duration, error) {
	setHash(nc)
	conds := nc.StatusConditions()
	st, spec := nc.NodeClassStatus(), nc.NodeClassSpec()
	cloud := p.Cloud(nc.Cloud())
	if cloud == nil {
		conds.SetFalse(v1.ConditionClusterReady, "NoToken", fmt.Sprintf("the provider has no %s token", nc.Cloud()))
		conds.SetFalse(v1.ConditionSizesResolved, "NoToken", fmt.Sprintf("the provider has no %s token", nc.Cloud()))
		return NotReadyRecheck, nil
	}
	cluster, err := cloud.FindCluster(ctx, spec.Cluster.ID, spec.Cluster.Name, spec.Cluster.Region)
	if notFound, ambiguous := errors.Is(err, clouds.ErrClusterNotFound), errors.Is(err, clouds.ErrClusterAmbiguous); notFound || ambiguous {
		// What the cloud says of the name is the user's to mend, not the cloud's: a condition.
		reason, which := "ClusterNotFound", "was not found"
		if ambiguous {
			reason, which = "ClusterAmbiguous", "is not one cluster"
		}
		st.ClusterID, st.Region, st.Sizes = "", "", nil
		conds.SetFalse(v1.ConditionClusterReady, reason, err.Error())
		conds.SetFalse(v1.ConditionSizesResolved, reason, "the region follows the cluster, which "+which)
		return NotReadyRecheck, nil
	}
	if err != nil {
		unreached(conds, nc.Cloud(), err)
		return 0, fmt.Errorf("find the cluster of %s %s: %w", nc.Cloud(), nc.GetName(), err)
	}
	st.ClusterID, st.Region = cluster.ID, cluster.Region
	if cluster.Running {
		conds.SetTrue(v1.ConditionClusterReady)
	} else {
		conds.SetFalse(v1.ConditionClusterReady, "ClusterNotRunning", fmt.Sprintf("cluster %s is %s", cluster.ID, cluster.State))
	}
	sizes, err := p.InstanceTypes().Sizes(ctx, cloud, cluster.Region)
	if err != nil {
		conds.SetFalse(v1.ConditionSizesResolved, "CloudUnreachable", fmt.Sprintf("%s's sizes could not be read: %v", nc.Cloud(), err))
		return 0, fmt.Errorf("read the sizes of %s %s: %w", nc.Cloud(), nc.GetName(), err)
	}
	selected := instancetype.Select(sizes, spec.SizeSelectorTerms)
	st.Sizes = nil
	for _, s := range selected {
		st.Sizes = append(st.Sizes, s.Name)
	}
	if len(selected) == 0 {
		conds.SetFalse(v1.ConditionSizesResolved, "NoSizeSelected",
			fmt.Sprintf("no priced size that %s offers for Kubernetes in %s matches the size selector terms", nc.Cloud(), cluster.Region))
	} else {
		conds.SetTrue(v1.ConditionSizesResolved)
	}
	if conds.Root().IsTrue() {
		return ReadyRecheck, nil
	}
	return NotReadyRecheck, nil
}

// setHash writes the spec's hash and its recipe's version on the NodeClass.
func setHash(nc v1.NodeClass) {
	a := nc.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[v1.AnnotationHash] = nc.NodeClassSpec().Hash()
	a[v1.AnnotationHashVersion] = v1.HashVersion
	nc.SetAnnotations(a)
}
