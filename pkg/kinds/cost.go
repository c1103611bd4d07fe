package kinds

import "github.com/clusterplane/clusterplane/pkg/cloud"

// CostOn is the Cost of a kind on cloud d: the cloud's name and limit from d, the run's list of
// the account at d's page, and the kind's estimates of an adopt and a refresh, which estimates
// makes with d's Requests (its pages) in hand, so that a kind says only how many requests an
// operation sends, not where the cloud's numbers come from.
func CostOn(d cloud.Driver, estimates func(r cloud.Requests) (adopt, refresh Estimate)) *Cost {
	r := d.Requests()
	adopt, refresh := estimates(r)
	return &Cost{
		Cloud:     string(d.ID()),
		PerMinute: r.PerMinute,
		Adopt:     adopt,
		Refresh:   refresh,
		List:      func(clusters int) int { return cloud.Pages(clusters, r.ClustersPerPage) },
	}
}
