package digitalocean_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/digitalocean/godo"
)

// onFake is a client of a loopback DigitalOcean holding one cluster with one manifest pool.
func onFake(t *testing.T) (*fakedo.DO, *digitalocean.Client, string) {
	t.Helper()
	f := fakedo.New(t, token)
	id := f.SeedCluster(godo.KubernetesCluster{Name: "c", RegionSlug: "fra1", VersionSlug: "1.31.1-do.5",
		NodePools: []*godo.KubernetesNodePool{{Name: "workers", Size: "s-2vcpu-4gb", Count: 2}}})
	return f, digitalocean.New(f.URL(), token, digitalocean.Options{}), id
}

func nodeIDs(p digitalocean.NodePool) []string {
	var ids []string
	for _, n := range p.Nodes {
		ids = append(ids, n.ID)
	}
	return ids
}

func TestPoolWritesChangeExactlyWhatTheySay(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		// do acts on a fresh pool of two nodes; check reads the pool after.
		do    func(t *testing.T, c *digitalocean.Client, cluster string, p digitalocean.NodePool) error
		check func(t *testing.T, before digitalocean.NodePool, after digitalocean.NodePool, found bool)
	}{
		{
			name: "a resize to three keeps the two nodes and adds one",
			do: func(t *testing.T, c *digitalocean.Client, cluster string, p digitalocean.NodePool) error {
				_, err := c.ResizePool(ctx, cluster, p.ID, p.Name, 3)
				return err
			},
			check: func(t *testing.T, before, after digitalocean.NodePool, _ bool) {
				if after.Count != 3 || len(after.Nodes) != 3 || !slices.Equal(nodeIDs(after)[:2], nodeIDs(before)) {
					t.Errorf("after the resize: count %d, nodes %v; want 3 with %v first", after.Count, nodeIDs(after), nodeIDs(before))
				}
			},
		},
		{
			name: "deleting the first node removes it alone and lowers the count",
			do: func(t *testing.T, c *digitalocean.Client, cluster string, p digitalocean.NodePool) error {
				return c.DeleteNode(ctx, cluster, p.ID, p.Nodes[0].ID)
			},
			check: func(t *testing.T, before, after digitalocean.NodePool, _ bool) {
				if after.Count != 1 || !slices.Equal(nodeIDs(after), nodeIDs(before)[1:]) {
					t.Errorf("after deleting %s: count %d, nodes %v; want 1, %v", before.Nodes[0].ID, after.Count, nodeIDs(after), nodeIDs(before)[1:])
				}
			},
		},
		{
			name: "deleting the pool removes it",
			do: func(t *testing.T, c *digitalocean.Client, cluster string, p digitalocean.NodePool) error {
				return c.DeletePool(ctx, cluster, p.ID)
			},
			check: func(t *testing.T, _, _ digitalocean.NodePool, found bool) {
				if found {
					t.Error("the pool is still there")
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, c, cluster := onFake(t)
			p, err := c.CreatePool(ctx, cluster, digitalocean.PoolRequest{Name: "karp-1", Size: "s-1vcpu-2gb", Count: 2,
				Tags: []string{"karpenter-mark"}, Labels: map[string]string{"team": "a"}})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(p.Tags, "karpenter-mark") || p.Labels["team"] != "a" || len(p.Nodes) != 2 || p.Nodes[0].DropletID == "" {
				t.Fatalf("created pool %+v: want the tag, the label and two nodes with Droplets", p)
			}
			if err := tc.do(t, c, cluster, p); err != nil {
				t.Fatal(err)
			}
			after, err := c.Pool(ctx, cluster, p.ID)
			found := err == nil
			if err != nil && !cloudapi.IsNotFound(err) {
				t.Fatal(err)
			}
			tc.check(t, p, after, found)
			if w, ok := f.PoolNamed(cluster, "workers"); !ok || w.Count != 2 || len(w.Nodes) != 2 {
				t.Errorf("the manifest's pool changed: %+v", w)
			}
		})
	}
}

func TestDeleteNodeAsksWithoutAReplacementAndAMissingNodeIsNotFound(t *testing.T) {
	f, c, cluster := onFake(t)
	ctx := context.Background()
	p, err := c.CreatePool(ctx, cluster, digitalocean.PoolRequest{Name: "karp-1", Size: "s-1vcpu-2gb", Count: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteNode(ctx, cluster, p.ID, p.Nodes[0].ID); err != nil {
		t.Fatal(err)
	}
	var asked string
	for _, r := range f.Requests(http.MethodDelete) {
		asked = r.Query
	}
	if want := "replace=0"; asked != want {
		t.Errorf("the delete asked ?%s, want ?%s", asked, want)
	}
	if err := c.DeleteNode(ctx, cluster, p.ID, p.Nodes[0].ID); !cloudapi.IsNotFound(err) {
		t.Errorf("deleting it again: %v, want not found", err)
	}
}

func TestSizeDetailsReadTheShapeAndThePrice(t *testing.T) {
	f, c, _ := onFake(t)
	f.Account().SetPrice("s-2vcpu-4gb", 24)
	sizes, err := c.SizeDetails(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		slug       string
		vcpus, mem int64
		gpus       int64
		monthly    float64
	}{
		{slug: "s-2vcpu-4gb", vcpus: 2, mem: 4096, monthly: 24},
		{slug: "gpu-h100x1-80gb", vcpus: 20, mem: 245760, gpus: 1},
	} {
		i := slices.IndexFunc(sizes, func(s digitalocean.SizeDetail) bool { return s.Slug == tc.slug })
		if i < 0 {
			t.Fatalf("no size %s", tc.slug)
		}
		s := sizes[i]
		var gpus int64
		if s.GPUInfo != nil {
			gpus = s.GPUInfo.Count
		}
		if s.Vcpus != tc.vcpus || s.Memory != tc.mem || gpus != tc.gpus || (tc.monthly > 0 && s.PriceMonthly != tc.monthly) {
			t.Errorf("%s: %+v", tc.slug, s)
		}
	}
}
