package kinds

import "github.com/clusterplane/clusterplane/pkg/cloud"

// CostOn is the Cost of a kind on cloud d: the cloud's name and limit from d, and estimates
// that each take d's Requests (its pages) beside the clusters the account holds, so that a kind
// says only how many requests an operation sends, not where the cloud's numbers come from.
func CostOn(d cloud.Driver, adopt, refresh func(r cloud.Requests, clusters int) int) *Cost {
	r := d.Requests()
	return &Cost{
		Cloud:     string(d.ID()),
		PerMinute: r.PerMinute,
		Adopt:     func(clusters int) int { return adopt(r, clusters) },
		Refresh:   func(clusters int) int { return refresh(r, clusters) },
	}
}
