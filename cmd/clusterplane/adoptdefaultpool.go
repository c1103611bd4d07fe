package main

import (
	"context"

	"github.com/pkg/errors"

	doclusterv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	domodule "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/module"
	"github.com/clusterplane/clusterplane/pkg/defaultpool"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/provider"
)

// tagDefaultPool readies a DigitalOcean cluster of several pools for its import: the provider
// imports it only when one pool carries terraform:default-node-pool, which clusters made by doctl
// or the console lack (see pkg/defaultpool). The pool the manifest names as its default pool gets
// that tag, a tag-only change, and nothing else is touched. Other kinds, and clusters the provider
// can import as they are, ask nothing. It says which pool it tagged ("" none).
func tagDefaultPool(ctx context.Context, t deploy.Target, clusterID string) (string, error) {
	in, ok := t.Input.(*doclusterv1.DigitalOceanKubernetesClusterStackInput)
	if !ok {
		return "", nil
	}
	pc := in.GetProviderConfig()
	token, url, err := provider.DigitalOcean.Resolve(pc.GetApiToken(), pc.GetApiUrl())
	if err != nil {
		return "", err
	}
	if token == "" {
		// The import fails then with the provider's own words about the token.
		return "", nil
	}
	pool := in.GetTarget().GetSpec().GetDefaultNodePool().GetNodePoolName()
	if pool == "" {
		// The name the module gives the pool when the manifest gives none.
		pool = domodule.DefaultNodePoolName
	}
	res, err := defaultpool.Client{URL: url, Token: token}.Ensure(ctx, clusterID, pool)
	if err != nil {
		return "", errors.Wrap(err, "ready the cluster's default pool for the import")
	}
	return res.PoolID, nil
}
