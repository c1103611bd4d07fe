package fakecivo_test

import (
	"slices"
	"testing"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	corev1 "k8s.io/api/core/v1"
)

// activeProviderIDs are civo://<instance id> of the pool's ACTIVE instances as the API reports
// them, sorted.
func activeProviderIDs(t *testing.T, c *civogo.Client, cid, poolID string) []string {
	t.Helper()
	p, err := c.GetKubernetesClusterPool(cid, poolID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, in := range p.Instances {
		if in.Status == "ACTIVE" {
			out = append(out, "civo://"+in.ID)
		}
	}
	slices.Sort(out)
	return out
}

func TestAPoolsNodesAreRegisteredAsTheInstancesCivoMade(t *testing.T) {
	f := fakecivo.New(t, token, "")
	c := client(t, f, "lon1")
	taint := corev1.Taint{Key: "karpenter.sh/unregistered", Effect: corev1.TaintEffectNoExecute}
	cid := f.SeedCluster(civogo.KubernetesCluster{Name: "web", Pools: []civogo.KubernetesPool{
		{ID: "k", Count: 2, Size: "g4s.kube.large", Taints: []corev1.Taint{taint}},
	}})
	m := &fakecloud.Recorded{}
	f.SetNodes(cid, m)
	steps := []struct {
		name  string
		count int
	}{
		{"a pool resized up registers the new instances under civo://<instance id>", 4},
		{"a pool resized down removes the instances it lost", 1},
	}
	if got, want := m.ProviderIDs(), activeProviderIDs(t, c, cid, "k"); len(want) != 2 || !slices.Equal(got, want) {
		t.Errorf("a seeded pool's instances: registered %q, want %q", got, want)
	}
	for _, s := range steps {
		if _, err := c.UpdateKubernetesClusterPool(cid, "k", &civogo.KubernetesClusterPoolUpdateConfig{Count: new(s.count), Region: "lon1", Taints: []corev1.Taint{taint}}); err != nil {
			t.Fatal(err)
		}
		want := activeProviderIDs(t, c, cid, "k")
		if got := m.ProviderIDs(); len(want) != s.count || !slices.Equal(got, want) {
			t.Errorf("%s: registered %q, want %q", s.name, got, want)
		}
	}
	for _, n := range m.Nodes() {
		if n.CPU != 4 || n.MemoryMiB != 8192 || n.GPUs != 0 {
			t.Errorf("node %s has %d CPU, %d MiB, %d GPUs; want g4s.kube.large's 4 CPU and 8192 MiB", n.Name, n.CPU, n.MemoryMiB, n.GPUs)
		}
		if !slices.Equal(n.Taints, []fakecloud.Taint{{Key: taint.Key, Effect: string(taint.Effect)}}) {
			t.Errorf("node %s has taints %v, want the pool's", n.Name, n.Taints)
		}
		if n.Labels["kubernetes.civo.com/civo-node-pool"] != "k" || n.Labels["node.kubernetes.io/instance-type"] != "g4s.kube.large" {
			t.Errorf("node %s has labels %v, want its pool's id and size", n.Name, n.Labels)
		}
	}
	if _, err := c.DeleteKubernetesClusterPool(cid, "k"); err != nil {
		t.Fatal(err)
	}
	if got := m.ProviderIDs(); len(got) != 0 {
		t.Errorf("after deleting the pool, registered %q, want none", got)
	}
}
