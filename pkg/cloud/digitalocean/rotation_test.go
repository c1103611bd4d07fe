package digitalocean_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	dofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/digitalocean/godo"
)

// poolClient is DigitalOcean's pool client of the loopback at url, as a rotation gets one.
func poolClient(url string) (*digitalocean.Client, error) {
	return digitalocean.New(url, "do-token", digitalocean.Options{}), nil
}

// The default pool's rotation moves the provider's default-pool tag: the surge pool is created
// without it, however the request reads, and takes it with the old pool's name at its rename, so
// that exactly one pool carries it at every moment the provider could read the cluster.
func TestTheDefaultPoolsTagMovesToTheNewPoolOnlyAtItsRename(t *testing.T) {
	digitalocean.Poll = 10 * time.Millisecond
	ctx := context.Background()
	do := fakedo.New(t, "do-token")
	cid := do.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "fra1", NodePools: []*godo.KubernetesNodePool{
		{Name: "default", Size: "s-2vcpu-4gb", Count: 2, Tags: []string{"team:web", dofacts.DefaultPoolTag}},
		{Name: "batch", Size: "s-2vcpu-4gb", Count: 1},
	}})
	client, err := poolClient(do.URL())
	if err != nil {
		t.Fatal(err)
	}
	p := digitalocean.Pools{Client: client, Cluster: cid, DefaultPool: true,
		New: digitalocean.PoolRequest{Size: "s-4vcpu-8gb", Count: 2, Tags: []string{"team:web", dofacts.DefaultPoolTag}}}
	old, _ := do.PoolNamed(cid, "default")
	if id, err := p.Tagged(ctx); err != nil || id != old.ID {
		t.Fatalf("the tagged pool = %q, %v; want %s", id, err, old.ID)
	}
	id, err := p.Create(ctx, "default-surge", "0123456789ab-ba9876543210")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WaitRunning(ctx, "default-surge", time.Minute); err != nil {
		t.Fatal(err)
	}
	surge, _ := do.Pool(cid, id)
	if slices.Contains(surge.Tags, dofacts.DefaultPoolTag) || !slices.Contains(surge.Tags, "team:web") || surge.Size != "s-4vcpu-8gb" {
		t.Errorf("the surge pool is %s with tags %v, want s-4vcpu-8gb with team:web and without %s", surge.Size, surge.Tags, dofacts.DefaultPoolTag)
	}
	if tagged, err := p.Tagged(ctx); err != nil || tagged != old.ID {
		t.Errorf("while both pools run the tagged pool = %q, %v; want the old %s", tagged, err, old.ID)
	}
	if err := p.Delete(ctx, old.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Tagged(ctx); err == nil || !strings.Contains(err.Error(), "no node pool") {
		t.Errorf("with the old pool gone, Tagged = %v, want no pool tagged", err)
	}
	for range 2 { // a rename repeated after a kill changes nothing more
		if err := p.Rename(ctx, id, "default"); err != nil {
			t.Fatal(err)
		}
	}
	renamed, _ := do.Pool(cid, id)
	if renamed.Name != "default" || !slices.Contains(renamed.Tags, dofacts.DefaultPoolTag) || !slices.Contains(renamed.Tags, "team:web") ||
		slices.Contains(renamed.Tags, digitalocean.MarkTag+"0123456789ab-ba9876543210") {
		t.Errorf("the new pool is %s with tags %v, want default with team:web and %s, without the rotation's mark", renamed.Name,
			renamed.Tags, dofacts.DefaultPoolTag)
	}
	if tagged, err := p.Tagged(ctx); err != nil || tagged != id {
		t.Errorf("after the rename the tagged pool = %q, %v; want the new %s", tagged, err, id)
	}
	batch, _ := do.PoolNamed(cid, "batch")
	do.EditPool(cid, batch.ID, func(bp *godo.KubernetesNodePool) { bp.Tags = append(bp.Tags, dofacts.DefaultPoolTag) })
	if _, err := p.Tagged(ctx); err == nil || !strings.Contains(err.Error(), "all carry the tag") {
		t.Errorf("with two pools tagged, Tagged = %v, want it refused", err)
	}
}

// A pool that is no default pool, and carries no rotation's mark, is renamed, its tags left as
// they are.
func TestARenameOfAnotherPoolSendsNoTags(t *testing.T) {
	ctx := context.Background()
	do := fakedo.New(t, "do-token")
	cid := do.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "fra1", NodePools: []*godo.KubernetesNodePool{
		{Name: "default", Size: "s-2vcpu-4gb", Count: 1, Tags: []string{dofacts.DefaultPoolTag}},
		{Name: "workers-surge", Size: "s-2vcpu-4gb", Count: 1, Tags: []string{"team:web"}},
	}})
	client, err := poolClient(do.URL())
	if err != nil {
		t.Fatal(err)
	}
	surge, _ := do.PoolNamed(cid, "workers-surge")
	if err := (digitalocean.Pools{Client: client, Cluster: cid}).Rename(ctx, surge.ID, "workers"); err != nil {
		t.Fatal(err)
	}
	if body := do.LastBody(t, "PUT", "/v2/kubernetes/clusters/"); body["tags"] != nil || body["name"] != "workers" {
		t.Errorf("the rename sent %v, want the name and no tags", body)
	}
	if got, _ := do.Pool(cid, surge.ID); slices.Contains(got.Tags, dofacts.DefaultPoolTag) {
		t.Errorf("a pool that is not the default pool took its tag: %v", got.Tags)
	}
}

// A surge pool of a rotation is renamed with its tags but the rotation's mark, so that the
// provider's read of the pool finds the manifest's tags only.
func TestARenameDropsTheRotationsMark(t *testing.T) {
	ctx := context.Background()
	do := fakedo.New(t, "do-token")
	cid := do.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "fra1", NodePools: []*godo.KubernetesNodePool{
		{Name: "default", Size: "s-2vcpu-4gb", Count: 1, Tags: []string{dofacts.DefaultPoolTag}},
		{Name: "workers-surge", Size: "s-2vcpu-4gb", Count: 1, Tags: []string{"team:web", digitalocean.MarkTag + "0123456789ab-ba9876543210"}},
	}})
	client, err := poolClient(do.URL())
	if err != nil {
		t.Fatal(err)
	}
	surge, _ := do.PoolNamed(cid, "workers-surge")
	if err := (digitalocean.Pools{Client: client, Cluster: cid}).Rename(ctx, surge.ID, "workers"); err != nil {
		t.Fatal(err)
	}
	got, _ := do.Pool(cid, surge.ID)
	// DigitalOcean adds its own k8s tags to every pool; the provider leaves them out of its read.
	if got.Name != "workers" || !slices.Contains(got.Tags, "team:web") ||
		slices.ContainsFunc(got.Tags, func(t string) bool { return strings.HasPrefix(t, digitalocean.MarkTag) }) {
		t.Errorf("the renamed pool is %s tagged %v, want workers tagged team:web without the mark", got.Name, got.Tags)
	}
}
