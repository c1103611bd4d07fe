package render

import (
	"context"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

// The first preview of a new cluster and its pool prices both: the pool cannot be previewed
// before its cluster exists, yet what it costs is its manifest's (2 s-4vcpu-8gb nodes, $96), so
// the fleet's cost counts it and never says "1 stack not priced".
func TestThePreviewOfANewClusterAndItsPoolPricesThePoolFromItsManifest(t *testing.T) {
	ctx := context.Background()
	d := &deploy.Deployer{Backend: deploytest.New()}
	cluster := fleetTarget(t, 1, 2)
	k, _ := registry.Kinds().ByName("DigitalOceanKubernetesNodePool")
	in := k.NewStackInput()
	text := "apiVersion: digitalocean.clusterplane.dev/v1\nkind: DigitalOceanKubernetesNodePool\nmetadata:\n  name: workers\nspec:\n" +
		"  nodePoolName: workers\n  cluster:\n    valueFrom: {kind: DigitalOceanKubernetesCluster, name: fleet-0001}\n" +
		"  size: s-4vcpu-8gb\n  nodeCount: 2\n"
	if err := stackinput.Parse([]byte(text), "workers.yaml", in); err != nil {
		t.Fatal(err)
	}
	pool := deploytarget.NewTarget("fleet/workers.yaml", k, in, "")
	outcomes := []outcome.Outcome{d.Preview(ctx, cluster, deploy.PreviewOptions{}), d.Preview(ctx, pool, deploy.PreviewOptions{})}
	if o := outcomes[1]; o.Status != outcome.Done || !strings.HasPrefix(o.Reason, "not previewed") {
		t.Fatalf("the pool's preview: %s %q %v; want not previewed, its cluster not deployed", o.Status, o.Reason, o.Err)
	}
	r := Report(operation.Preview, outcomes, clouds.Prices)
	price := clouds.Prices("digitalocean").Sizes["s-4vcpu-8gb"]
	if c := r.Stacks[1].Cost; c == nil || c.Old.Max != 0 || c.New.Min != 2*price || c.New.Max != 2*price {
		t.Errorf("the pool's cost: %+v, want from nothing to 2 × %v", c, price)
	}
	summary := FleetSummary(r, 0)
	if strings.Contains(summary, "not priced") {
		t.Errorf("the summary leaves the new pool out:\n%s", summary)
	}
	clusterCost := r.Stacks[0].Cost
	if clusterCost == nil {
		t.Fatal("the new cluster is not priced")
	}
	want := usd(0, 0, false) + " → " + usd(clusterCost.New.Min+2*price, clusterCost.New.Max+2*price, false) + "/month"
	if !strings.Contains(summary, want) {
		t.Errorf("the summary says:\n%s\nwant the cluster and the pool in it: %s", summary, want)
	}
}
