package fakecivo_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/pkg/cloud/kube"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	corev1 "k8s.io/api/core/v1"
)

// registry is a Nodes that keeps what it was told, by node name.
type registry struct {
	mu    sync.Mutex
	nodes map[string]map[string]string
}

func (r *registry) AddNode(n fakecloud.Node) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nodes[n.Name] = n.Labels
	return nil
}

func (r *registry) RemoveNode(name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.nodes, name)
	return nil
}

// pools are the registered nodes' pool ids, sorted.
func (r *registry) pools() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, l := range r.nodes {
		out = append(out, l["kubernetes.civo.com/civo-node-pool"])
	}
	slices.Sort(out)
	return out
}

func TestAPoolsActiveNodesAreRegisteredAndGoWithThePool(t *testing.T) {
	f := fakecivo.New(t, token, "")
	c := client(t, f, "lon1")
	cid := f.SeedCluster(civogo.KubernetesCluster{Name: "web", Pools: []civogo.KubernetesPool{
		{ID: "a", Count: 1, Size: "g4s.kube.medium", Labels: map[string]string{"tier": "web"}},
		{ID: "b", Count: 2, Size: "g4s.kube.large"},
	}})
	r := &registry{nodes: map[string]map[string]string{}}
	f.SetNodes(cid, r)
	if got := r.pools(); !slices.Equal(got, []string{"a", "b", "b"}) {
		t.Fatalf("after SetNodes, registered pools %q", got)
	}
	for name, labels := range r.nodes {
		if labels["kubernetes.civo.com/civo-node-pool"] == "a" && labels["tier"] != "web" {
			t.Errorf("node %s lacks its pool's labels: %v", name, labels)
		}
	}
	if _, err := c.UpdateKubernetesClusterPool(cid, "b", &civogo.KubernetesClusterPoolUpdateConfig{Count: new(1), Region: "lon1", Taints: []corev1.Taint{}}); err != nil {
		t.Fatal(err)
	}
	if got := r.pools(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("after shrinking pool b, registered pools %q", got)
	}
	if _, err := c.DeleteKubernetesClusterPool(cid, "b"); err != nil {
		t.Fatal(err)
	}
	if got := r.pools(); !slices.Equal(got, []string{"a"}) {
		t.Errorf("after deleting pool b, registered pools %q", got)
	}
}

func TestASetKubeconfigIsTheClustersKubeconfig(t *testing.T) {
	f := fakecivo.New(t, token, "")
	c := client(t, f, "lon1")
	cid := f.SeedCluster(civogo.KubernetesCluster{Name: "web"})
	kc := "apiVersion: v1\nkind: Config\n# the e2e control plane's\n"
	f.SetKubeconfig(cid, []byte(kc))
	got, err := c.GetKubernetesCluster(cid)
	if err != nil || got.KubeConfig != kc {
		t.Errorf("kubeconfig %q (%v), want the one set", got.KubeConfig, err)
	}
}

// A cluster's made-up kubeconfig parses as a real one does, so that what reads it (a rotation, in
// the sandbox) gets as far as dialling, where nothing answers, as the sandbox's docs say.
func TestAClustersMadeUpKubeconfigParsesAsARealOne(t *testing.T) {
	f := fakecivo.New(t, token, "")
	c := client(t, f, "lon1")
	created := createCluster(t, c, "kubeconfig")
	cl, err := c.GetKubernetesCluster(created.ID)
	if err != nil {
		t.Fatal(err)
	}
	if cl.KubeConfig == "" {
		t.Fatal("the cluster reports no kubeconfig")
	}
	if _, err := kube.New([]byte(cl.KubeConfig)); err != nil {
		t.Errorf("the kubeconfig does not parse: %v", err)
	}
}
