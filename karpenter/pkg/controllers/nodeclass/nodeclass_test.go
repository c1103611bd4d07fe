package nodeclass_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/awslabs/operatorpkg/status"
	"github.com/clusterplane/clusterplane/karpenter/internal/testbed"
	v1 "github.com/clusterplane/clusterplane/karpenter/pkg/apis/v1"
	"github.com/clusterplane/clusterplane/karpenter/pkg/cloudprovider"
	"github.com/clusterplane/clusterplane/karpenter/pkg/clouds"
	"github.com/clusterplane/clusterplane/karpenter/pkg/controllers/nodeclass"
	"github.com/clusterplane/clusterplane/karpenter/pkg/providers/instance"
	"github.com/clusterplane/clusterplane/karpenter/pkg/providers/instancetype"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func TestReconcileWritesTheStatusAndTheHashToTheAPI(t *testing.T) {
	for _, b := range testbed.Both(t) {
		kind := "DigitalOceanNodeClass"
		if b.Name == "civo" {
			kind = "CivoNodeClass"
		}
		for _, tc := range []struct {
			name    string
			cluster v1.ClusterRef
			ready   bool
			after   time.Duration
		}{
			{"a NodeClass of a running cluster is ready and checked again in minutes", v1.ClusterRef{ID: b.Cluster.ID}, true, nodeclass.ReadyRecheck},
			{"a NodeClass of a missing cluster is not ready and checked again soon", v1.ClusterRef{ID: "gone"}, false, nodeclass.NotReadyRecheck},
		} {
			t.Run(b.Name+"/"+tc.name, func(t *testing.T) {
				nc := cloudprovider.NewNodeClass(kind)
				nc.SetName("default")
				nc.NodeClassSpec().Cluster = tc.cluster
				kube := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithStatusSubresource(nc).WithObjects(nc).Build()
				p := cloudprovider.New(kube, []clouds.Cloud{b.Cloud}, instancetype.New(time.Minute), instance.New())
				c := &nodeclass.Controller{Kube: kube, Provider: p, Kind: kind}
				res, err := c.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Name: "default"}})
				if err != nil {
					t.Fatal(err)
				}
				if res.RequeueAfter != tc.after {
					t.Errorf("requeue after %v, want %v", res.RequeueAfter, tc.after)
				}
				got := cloudprovider.NewNodeClass(kind)
				if err := kube.Get(context.Background(), types.NamespacedName{Name: "default"}, got); err != nil {
					t.Fatal(err)
				}
				if ready := got.StatusConditions().Get(status.ConditionReady).IsTrue(); ready != tc.ready {
					t.Errorf("stored Ready %v, want %v: %+v", ready, tc.ready, got.NodeClassStatus())
				}
				if got.GetAnnotations()[v1.AnnotationHash] != got.NodeClassSpec().Hash() {
					t.Errorf("stored annotations %v, want the spec's hash", got.GetAnnotations())
				}
			})
		}
	}
}

// Promise: karpenter-nodeclass-conditions
func TestACloudThatCannotBeAskedShowsInTheStatus(t *testing.T) {
	const wrong = "dop_v1_wrong-token-never-shown"
	for _, b := range testbed.Both(t) {
		kind, newCloud := "DigitalOceanNodeClass", func(url, token string) clouds.Cloud { return clouds.NewDigitalOcean(url, token) }
		if b.Name == "civo" {
			kind, newCloud = "CivoNodeClass", func(url, token string) clouds.Cloud { return clouds.NewCivo(url, token) }
		}
		for _, tc := range []struct {
			name, url, reason, says string
		}{
			{"a refused token is Unauthorized", b.URL, "Unauthorized", "401"},
			{"an API that does not answer is CloudUnreachable, naming its host", "http://127.0.0.1:1", "CloudUnreachable", "no answer from 127.0.0.1:1"},
		} {
			t.Run(b.Name+"/"+tc.name, func(t *testing.T) {
				nc := cloudprovider.NewNodeClass(kind)
				nc.SetName("default")
				nc.NodeClassSpec().Cluster = v1.ClusterRef{ID: b.Cluster.ID}
				// It was Ready with a good token: a revoked one must not leave it so.
				nc.StatusConditions().SetTrue(v1.ConditionClusterReady)
				nc.StatusConditions().SetTrue(v1.ConditionSizesResolved)
				kube := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithStatusSubresource(nc).WithObjects(nc).Build()
				p := cloudprovider.New(kube, []clouds.Cloud{newCloud(tc.url, wrong)}, instancetype.New(time.Minute), instance.New())
				c := &nodeclass.Controller{Kube: kube, Provider: p, Kind: kind}
				if _, err := c.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Name: "default"}}); err == nil {
					t.Error("no error: the controller would not log it nor try again with backoff")
				}
				got := cloudprovider.NewNodeClass(kind)
				if err := kube.Get(context.Background(), types.NamespacedName{Name: "default"}, got); err != nil {
					t.Fatal(err)
				}
				ready := got.StatusConditions().Get(status.ConditionReady)
				cluster := got.StatusConditions().Get(v1.ConditionClusterReady)
				if ready.IsTrue() || cluster.IsTrue() || cluster.Reason != tc.reason || !strings.Contains(cluster.Message, tc.says) {
					t.Errorf("stored Ready %s, ClusterReady %s %s %q; want both False, %s, saying %q",
						ready.Status, cluster.Status, cluster.Reason, cluster.Message, tc.reason, tc.says)
				}
				if strings.Contains(cluster.Message, wrong) {
					t.Errorf("the condition quotes the token: %q", cluster.Message)
				}
			})
		}
	}
}
