package civo

import (
	"context"

	"github.com/clusterplane/clusterplane/pkg/cloud/runlist"
	civofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/civo"
)

// RunClusters are region's clusters of the account of token at base, from the list of the run
// ctx carries (runlist.Listed): list makes it on the run's first need, and every later look-up
// of the run in that region shares it. ok is false when ctx carries no run, and the caller lists
// the region itself.
func RunClusters(ctx context.Context, base, token, region string, list func(context.Context) ([]Cluster, error)) (clusters []Cluster, ok bool, err error) {
	if base == "" {
		base = Env.API
	}
	return runlist.Listed(ctx, runlist.Account{Cloud: string(civofacts.ID), API: base, Token: token, Region: region}, list)
}
