package fakedo

import (
	"context"
	"net/url"
	"slices"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/digitalocean/godo"
)

// poolProviderIDs are the providerIDs of the pool's nodes as the API reports them, sorted.
func poolProviderIDs(t *testing.T, c *godo.Client, cid, poolID string) []string {
	t.Helper()
	p, _, err := c.Kubernetes.GetNodePool(context.Background(), cid, poolID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range p.Nodes {
		out = append(out, "digitalocean://"+n.DropletID)
	}
	slices.Sort(out)
	return out
}

func TestAPoolsNodesAreRegisteredAsTheMachinesTheCloudMade(t *testing.T) {
	ctx := context.Background()
	d := New(t, "tok")
	c := godo.NewFromToken("tok")
	c.BaseURL, _ = url.Parse(d.URL())
	cid := d.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "nyc1"})
	m := &fakecloud.Recorded{}
	d.SetNodes(cid, m)
	taint := godo.Taint{Key: "karpenter.sh/unregistered", Effect: "NoExecute"}
	p, _, err := c.Kubernetes.CreateNodePool(ctx, cid, &godo.KubernetesNodePoolCreateRequest{
		Name: "batch", Size: "c-4", Count: 2, Taints: []godo.Taint{taint}})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name  string
		count int
	}{
		{"a pool created with a count registers each node under its droplet's providerID", 2},
		{"a pool resized up registers the new nodes", 5},
		{"a pool resized down removes the nodes it lost", 1},
	}
	for _, s := range steps {
		if _, _, err := c.Kubernetes.UpdateNodePool(ctx, cid, p.ID, &godo.KubernetesNodePoolUpdateRequest{Name: "batch", Count: godo.PtrTo(s.count)}); err != nil {
			t.Fatal(err)
		}
		want := poolProviderIDs(t, c, cid, p.ID) // reading the pool also finishes provisioning
		if got := m.ProviderIDs(); len(want) != s.count || !slices.Equal(got, want) {
			t.Errorf("%s: registered %q, want %q", s.name, got, want)
		}
	}
	for _, n := range m.Nodes() {
		if n.CPU != 4 || n.MemoryMiB != 8192 || n.GPUs != 0 {
			t.Errorf("node %s has %d CPU, %d MiB, %d GPUs; want c-4's 4 CPU and 8192 MiB", n.Name, n.CPU, n.MemoryMiB, n.GPUs)
		}
		if !slices.Equal(n.Taints, []fakecloud.Taint{{Key: taint.Key, Effect: taint.Effect}}) {
			t.Errorf("node %s has taints %v, want the pool's", n.Name, n.Taints)
		}
	}
	if _, err := c.Kubernetes.DeleteNodePool(ctx, cid, p.ID); err != nil {
		t.Fatal(err)
	}
	if got := m.ProviderIDs(); len(got) != 0 {
		t.Errorf("after deleting the pool, registered %q, want none", got)
	}
}

func TestANodesCapacityIsWhatTheSizesAPISaysOfItsSize(t *testing.T) {
	cases := []struct {
		name           string
		size           string
		cpu, mem, gpus int
	}{
		{"a basic Droplet", "s-2vcpu-4gb", 2, 4096, 0},
		{"a CPU-optimized Droplet whose slug says only the cores", "c-8", 8, 16384, 0},
		{"a GPU Droplet counts its GPUs", "gpu-h100x8-640gb", 160, 1966080, 8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := kubeNode(&godo.KubernetesCluster{}, &godo.KubernetesNodePool{Size: c.size}, &godo.KubernetesNode{DropletID: "7"})
			listed := withShape(godo.Size{Slug: c.size})
			if n.CPU != c.cpu || n.MemoryMiB != c.mem || n.GPUs != c.gpus || n.CPU != listed.Vcpus || n.MemoryMiB != listed.Memory {
				t.Errorf("node of %s: %d CPU, %d MiB, %d GPUs; want %d, %d, %d as /v2/sizes lists it", c.size, n.CPU, n.MemoryMiB, n.GPUs, c.cpu, c.mem, c.gpus)
			}
		})
	}
}
