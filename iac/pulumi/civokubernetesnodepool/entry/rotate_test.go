package entry

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/civo/civogo"
	cpv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	civodriver "github.com/clusterplane/clusterplane/pkg/cloud/civo"
	civopool "github.com/clusterplane/clusterplane/pkg/cloud/civo/pools"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
)

func TestARotationCreatesAndDeletesCivoPoolsByNameAndReadsTheKubeconfigIntoMemory(t *testing.T) {
	for _, env := range []string{civodriver.TokenEnv, civodriver.APIURLEnv} {
		t.Setenv(env, "")
	}
	const token = "civo-token"
	civo := fakecivo.New(t, token, "")
	cluster := civo.SeedCluster(civogo.KubernetesCluster{Name: "web", NetworkID: civo.DefaultNetworkID("fra1")})
	civo.Seed(cluster, civogo.KubernetesPool{ID: "workers", Size: "g4s.kube.medium", Count: 2})
	civo.SetKubeconfig(cluster, []byte("apiVersion: v1\nkind: Config\n"))
	input := &cpv1.CivoKubernetesNodePoolStackInput{
		ProviderConfig: &civov1.CivoProviderConfig{ApiToken: token, ApiUrl: civo.URL()},
		Target: &cpv1.CivoKubernetesNodePool{Spec: &cpv1.CivoKubernetesNodePoolSpec{
			NodePoolName: "workers", Cluster: sharedv1.StringValue(cluster), Region: "fra1", Size: "g4s.kube.large", NodeCount: 2,
			Labels:  map[string]string{"workload": "apps"},
			Taints:  []*sharedv1.Taint{{Key: "gpu", Value: "yes", Effect: sharedv1.TaintEffect_NoSchedule}},
			Rollout: &sharedv1.Rollout{Strategy: sharedv1.RolloutStrategy_ROTATE, ReadyTimeoutMinutes: 3}},
		},
	}
	resolve := func(_ context.Context, ref *sharedv1.StringValueOrRef, _ string) (string, error) {
		return ref.GetValue(), nil
	}
	ctx := context.Background()
	r, err := rotate(ctx, input, "workers", resolve)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := r.Kubeconfig(ctx)
	if err != nil || string(kubeconfig) != "apiVersion: v1\nkind: Config\n" || r.NodeLabels != "civo" || r.Nodes != 2 || r.Final != "" ||
		r.ReadyTimeout.Minutes() != 3 {
		t.Errorf("rotation %+v, want the cluster's kubeconfig, Civo's node labels, 2 nodes, no rename, 3 minutes", r)
	}
	if id := r.StateID("workers"); id != cluster+":workers" {
		t.Errorf("the state's id of pool workers is %q, want CLUSTER_ID:workers, as the plugin imports it", id)
	}
	mark := rotation.NewMark("civo-nodepool/workers", rotation.NewID()).String()
	// The pool of the manifest's name carries no mark of the rotation: found by name, it is not
	// the rotation's; a name no pool has is nothing.
	var foreign *rotation.ForeignPoolError
	if id, err := r.Cloud.Find(ctx, "workers", mark); !errors.As(err, &foreign) || foreign.Name != "workers" {
		t.Errorf("find workers = %q, %v; want it named as not the rotation's", id, err)
	}
	if id, err := r.Cloud.Find(ctx, "workers-surge", mark); err != nil || id != "" {
		t.Errorf("find workers-surge = %q, %v; want nothing", id, err)
	}
	if id, err := r.Cloud.Create(ctx, "workers-surge", mark); err != nil || id != "workers-surge" {
		t.Fatalf("create: %q, %v", id, err)
	}
	p, ok := civo.Pool(cluster, "workers-surge")
	if !ok || p.Size != "g4s.kube.large" || p.Count != 2 || p.Labels["workload"] != "apps" || len(p.Taints) != 1 ||
		p.Labels[civopool.RotationLabel] != mark {
		t.Errorf("the surge pool is %+v (found %v), want the manifest's settings and the rotation's mark", p, ok)
	}
	if id, err := r.Cloud.Find(ctx, "workers-surge", mark); err != nil || id != "workers-surge" {
		t.Errorf("find of the surge pool made = %q, %v", id, err)
	}
	if marked, err := r.Cloud.Marked(ctx); err != nil || len(marked) != 1 || marked[0].ID != "workers-surge" || marked[0].Mark.String() != mark {
		t.Errorf("Marked = %+v, %v; want the surge pool with its mark", marked, err)
	}
	for range 2 { // the second time the pool is gone already: no error
		if err := r.Cloud.Delete(ctx, "workers"); err != nil {
			t.Fatalf("delete: %v", err)
		}
	}
	if _, ok := civo.Pool(cluster, "workers"); ok {
		t.Error("pool workers is still there")
	}
	if err := r.Cloud.Rename(ctx, "workers-surge", "workers"); err == nil || !strings.Contains(err.Error(), "does not rename") {
		t.Errorf("rename: %v, want refused", err)
	}
}
