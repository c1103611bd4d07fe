package kinds

import "github.com/clusterplane/clusterplane/pkg/cloud"

// Per is how a kind estimates one operation on one of its stacks: the requests the operation
// sends for the stack alone, given its cloud's pages (r) and the clusters the account holds, and
// whether it looks the stack up by name in the run's list of the account (Estimate.Lists).
type Per struct {
	Own   func(r cloud.Requests, clusters int) int
	Lists bool
}

// CostOn is the Cost of a kind on cloud d: the cloud's name and limit from d, the run's list of
// the account at d's page, and estimates that each take d's Requests (its pages) beside the
// clusters the account holds, so that a kind says only how many requests an operation sends, not
// where the cloud's numbers come from.
func CostOn(d cloud.Driver, adopt, refresh Per) *Cost {
	r := d.Requests()
	estimate := func(p Per) Estimate {
		return Estimate{Own: func(clusters int) int { return p.Own(r, clusters) }, Lists: p.Lists}
	}
	return &Cost{
		Cloud:     string(d.ID()),
		PerMinute: r.PerMinute,
		Adopt:     estimate(adopt),
		Refresh:   estimate(refresh),
		List:      func(clusters int) int { return cloud.Pages(clusters, r.ClustersPerPage) },
	}
}
