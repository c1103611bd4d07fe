//go:build e2e

package e2e_test

import (
	"context"
	"strings"
	"testing"

	"github.com/digitalocean/godo"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

// A real control plane's disruption controller fills in the budgets' status the plan reads: a
// budget that needs both of its two pods blocks the upgrade, one that lets one go does not.
func TestAnUpgradeIsBlockedByABudgetAllowingNoDisruptionOnARealControlPlane(t *testing.T) {
	t.Parallel()
	k := newKubeCluster(t)
	do := fakedo.New(t, doToken)
	cid := do.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "nyc1", VersionSlug: "1.31.9-do.2",
		NodePools: []*godo.KubernetesNodePool{{Name: "pool", Size: "s-2vcpu-4gb", Count: 2}}})
	do.SetNodes(cid, k.nodes())
	do.SetKubeconfig(cid, k.kubeconfig())
	cs := k.clientset()
	workload(t, cs, "shop", 2, 2) // needs both pods: no node of theirs can be drained
	workload(t, cs, "cart", 2, 1) // lets one go

	p := upgrade.AssessOne(context.Background(), upgrade.Cluster{Name: "web", ClusterName: "web", Region: "nyc1", ID: cid,
		Version: "1.32.2-do.0", Cloud: digitalocean.NewUpgrades(do.URL(), doToken)})
	blockers := strings.Join(p.Blockers, "\n")
	if !strings.Contains(blockers, "PodDisruptionBudget shop/web never allows a disruption (it needs 2 of its 2 pods healthy)") {
		t.Errorf("blockers:\n%s\nwant shop/web's budget", blockers)
	}
	if strings.Contains(blockers, "cart/web") || len(p.Budgets) != 1 {
		t.Errorf("budgets %+v; blockers:\n%s\nwant only shop/web's", p.Budgets, blockers)
	}
}
