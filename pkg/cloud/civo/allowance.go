package civo

import (
	"context"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

// Allowance is never known: Civo's answers say nothing of the requests an account has left
// (civogo reads no such header), so nothing is asked.
func (Driver) Allowance(context.Context, string, string) (cloudapi.Allowance, bool, error) {
	return cloudapi.Allowance{}, false, nil
}
