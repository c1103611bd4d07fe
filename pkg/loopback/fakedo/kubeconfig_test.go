package fakedo_test

import (
	"context"
	"encoding/base64"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/digitalocean/godo"
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

// pools are the registered nodes' pool labels, sorted.
func (r *registry) pools() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, l := range r.nodes {
		out = append(out, l["doks.digitalocean.com/node-pool"])
	}
	slices.Sort(out)
	return out
}

func TestAPoolsRunningNodesAreRegisteredAndGoWithThePool(t *testing.T) {
	ctx := context.Background()
	d, c := start(t)
	cid := d.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "nyc1", NodePools: []*godo.KubernetesNodePool{
		{Name: "default", Size: "s-2vcpu-4gb", Count: 1, Labels: map[string]string{"tier": "web"}},
	}})
	r := &registry{nodes: map[string]map[string]string{}}
	d.SetNodes(cid, r)
	if got := r.pools(); !slices.Equal(got, []string{"default"}) {
		t.Fatalf("after SetNodes, registered pools %q, want the seeded node", got)
	}
	seeded, _ := d.PoolNamed(cid, "default")
	labels := r.nodes[seeded.Nodes[0].Name]
	want := map[string]string{
		"tier": "web", "doks.digitalocean.com/node-pool": "default", "doks.digitalocean.com/node-pool-id": seeded.ID,
		"doks.digitalocean.com/node-id": seeded.Nodes[0].ID, "doks.digitalocean.com/version": labels["doks.digitalocean.com/version"],
		"node.kubernetes.io/instance-type": "s-2vcpu-4gb",
	}
	if !maps.Equal(labels, want) || labels["doks.digitalocean.com/version"] == "" {
		t.Errorf("node labels %v, want %v", labels, want)
	}

	p, _, err := c.Kubernetes.CreateNodePool(ctx, cid, &godo.KubernetesNodePoolCreateRequest{Name: "batch", Size: "c-4", Count: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Provisioning nodes have no kubelet yet: they join once the cloud reports them running.
	if got := r.pools(); !slices.Equal(got, []string{"default"}) {
		t.Errorf("while provisioning, registered pools %q, want only the default one", got)
	}
	if _, _, err := c.Kubernetes.GetNodePool(ctx, cid, p.ID); err != nil {
		t.Fatal(err)
	}
	if got := r.pools(); !slices.Equal(got, []string{"batch", "batch", "default"}) {
		t.Errorf("once running, registered pools %q, want both batch nodes", got)
	}
	if _, _, err := c.Kubernetes.UpdateNodePool(ctx, cid, p.ID, &godo.KubernetesNodePoolUpdateRequest{Name: "batch", Count: godo.PtrTo(1)}); err != nil {
		t.Fatal(err)
	}
	if got := r.pools(); !slices.Equal(got, []string{"batch", "default"}) {
		t.Errorf("after shrinking, registered pools %q, want one batch node", got)
	}
	if _, err := c.Kubernetes.DeleteNodePool(ctx, cid, p.ID); err != nil {
		t.Fatal(err)
	}
	if got := r.pools(); !slices.Equal(got, []string{"default"}) {
		t.Errorf("after deleting the pool, registered pools %q", got)
	}
	if _, err := c.Kubernetes.Delete(ctx, cid); err != nil {
		t.Fatal(err)
	}
	if got := r.pools(); len(got) != 0 {
		t.Errorf("after deleting the cluster, registered pools %q, want none", got)
	}
}

func TestASetKubeconfigIsServedAsItIsAndAsCredentials(t *testing.T) {
	ctx := context.Background()
	d, c := start(t)
	cid := d.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "nyc1"})
	other := d.SeedCluster(godo.KubernetesCluster{Name: "api", RegionSlug: "nyc1"})
	ca := []byte("-----BEGIN CERTIFICATE-----\nreal\n-----END CERTIFICATE-----\n")
	kc := []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: e2e\n  cluster:\n    server: https://127.0.0.1:23456\n" +
		"    certificate-authority-data: " + base64.StdEncoding.EncodeToString(ca) + "\n" +
		"users:\n- name: admin\n  user:\n    token: the-real-token\n" +
		"contexts:\n- name: e2e\n  context:\n    cluster: e2e\n    user: admin\ncurrent-context: e2e\n")
	d.SetKubeconfig(cid, kc)

	got, _, err := c.Kubernetes.GetKubeConfig(ctx, cid, nil)
	if err != nil || string(got.KubeconfigYAML) != string(kc) {
		t.Errorf("kubeconfig %q (%v), want the one set", got.KubeconfigYAML, err)
	}
	creds, _, err := c.Kubernetes.GetCredentials(ctx, cid, &godo.KubernetesClusterCredentialsGetRequest{})
	if err != nil || creds.Server != "https://127.0.0.1:23456" || creds.Token != "the-real-token" || string(creds.CertificateAuthorityData) != string(ca) {
		t.Errorf("credentials %+v (%v), want the set kubeconfig's", creds, err)
	}
	if got, _, err := c.Kubernetes.GetKubeConfig(ctx, other, nil); err != nil || string(got.KubeconfigYAML) == string(kc) {
		t.Errorf("another cluster serves the set kubeconfig too (%v)", err)
	}
	d.SetKubeconfig(cid, nil)
	if got, _, err := c.Kubernetes.GetKubeConfig(ctx, cid, nil); err != nil || string(got.KubeconfigYAML) == string(kc) {
		t.Errorf("after SetKubeconfig(nil), still the set kubeconfig (%v)", err)
	}
}
