package digitalocean

import (
	"context"

	"github.com/clusterplane/clusterplane/pkg/cloud/runlist"
	dofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/digitalocean"
)

// RunClusters are the clusters, with their pools, of the account of token at base, from the
// list of the run ctx carries (runlist.Listed): list makes it on the run's first need, and every
// later look-up of the run in that account shares it. ok is false when ctx carries no run, and
// the caller lists the account itself.
func RunClusters(ctx context.Context, base, token string, list func(context.Context) ([]Cluster, error)) (clusters []Cluster, ok bool, err error) {
	if base == "" {
		base = Env.API
	}
	return runlist.Listed(ctx, runlist.Account{Cloud: string(dofacts.ID), API: base, Token: token}, list)
}
