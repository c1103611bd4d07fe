package kinds

import (
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
)

func TestCostOnTakesTheCloudsNameAndLimitAndHandsItsPagesToTheEstimates(t *testing.T) {
	d := digitalocean.Driver{}
	c := CostOn(d, func(r cloud.Requests) (adopt, refresh Estimate) {
		return Estimate{Own: func(clusters int) int { return cloud.Pages(clusters, r.ClustersPerPage) }, Lists: true},
			Estimate{Own: func(clusters int) int { return cloud.Pages(clusters, r.ImportClustersPerPage) }}
	})
	if c.Cloud != string(d.ID()) || c.PerMinute != d.Requests().PerMinute {
		t.Errorf("CostOn: cloud %q at %d a minute, want %q at %d", c.Cloud, c.PerMinute, d.ID(), d.Requests().PerMinute)
	}
	clusters := 3 * d.Requests().ImportClustersPerPage
	if got, want := c.Adopt.Own(clusters), cloud.Pages(clusters, d.Requests().ClustersPerPage); got != want {
		t.Errorf("Adopt(%d) = %d, want %d (the clusters at the driver's page)", clusters, got, want)
	}
	if got := c.Refresh.Own(clusters); got != 3 {
		t.Errorf("Refresh(%d) = %d, want 3 (the clusters at the driver's import page)", clusters, got)
	}
	if !c.Adopt.Lists || c.Refresh.Lists {
		t.Errorf("Adopt lists %t, Refresh lists %t: want each as the kind said", c.Adopt.Lists, c.Refresh.Lists)
	}
	if got, want := c.List(clusters), cloud.Pages(clusters, d.Requests().ClustersPerPage); got != want {
		t.Errorf("List(%d) = %d, want %d (the run's list at the driver's page)", clusters, got, want)
	}
}
