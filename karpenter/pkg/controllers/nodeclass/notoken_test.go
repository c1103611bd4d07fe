package nodeclass_test

import (
	"context"
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
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// Without its cloud's token (the provider serves no cloud, or only the other one), a NodeClass is
// never Ready, however often it is checked: even one that was Ready says NoToken.
// Promise: karpenter-readme-digitalocean-nodeclass-needs-its-token
// Promise: karpenter-readme-civo-nodeclass-needs-its-token
func TestANodeClassOfACloudTheProviderHasNoTokenForIsNeverReady(t *testing.T) {
	for _, b := range testbed.Both(t) {
		t.Run(b.Name, func(t *testing.T) {
			kind, other := "DigitalOceanNodeClass", clouds.Cloud(clouds.NewCivo(b.URL, "civo-token"))
			if b.Name == "civo" {
				kind, other = "CivoNodeClass", clouds.NewDigitalOcean(b.URL, "dop_v1_token")
			}
			kube := fake.NewClientBuilder().WithScheme(scheme.Scheme).Build()
			for _, served := range [][]clouds.Cloud{nil, {other}} {
				p := cloudprovider.New(kube, served, instancetype.New(time.Minute), instance.New())
				nc := cloudprovider.NewNodeClass(kind)
				nc.SetName("default")
				nc.NodeClassSpec().Cluster = v1.ClusterRef{ID: b.Cluster.ID}
				nc.StatusConditions().SetTrue(v1.ConditionClusterReady)
				nc.StatusConditions().SetTrue(v1.ConditionSizesResolved)
				for range 2 {
					if _, err := nodeclass.Check(context.Background(), p, nc); err != nil {
						t.Fatalf("serving %d other clouds: %v", len(served), err)
					}
					conds := nc.StatusConditions()
					if ready := conds.Get(status.ConditionReady); ready == nil || ready.IsTrue() {
						t.Errorf("serving %d other clouds: Ready %+v, want False", len(served), ready)
					}
					for _, c := range []string{v1.ConditionClusterReady, v1.ConditionSizesResolved} {
						if got := conds.Get(c); got == nil || !got.IsFalse() || got.Reason != "NoToken" {
							t.Errorf("serving %d other clouds: %s %+v, want False NoToken", len(served), c, got)
						}
					}
				}
			}
		})
	}
}
