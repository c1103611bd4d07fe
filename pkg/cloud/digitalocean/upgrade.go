package digitalocean

import (
	"context"
	"strings"
	"time"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/kube"
)

// This file is DigitalOcean as an upgrade plan asks it (pkg/change/upgrade's Cloud) and its
// catalogue, as preview and up ask it: the requests are made here, and the plan reads their
// answers.

// upgradeMaxPages are the pages Find reads at most: 10,000 clusters. Past them it stops looking
// without an error.
const upgradeMaxPages = 50

// Upgrades is DigitalOcean's Kubernetes API as an upgrade plan asks it.
type Upgrades struct {
	api *Client
	// LintWait bounds the wait for a clusterlint run's results.
	LintWait time.Duration
}

var _ upgrade.Cloud = (*Upgrades)(nil)

// Upgrades is DigitalOcean's API at base (DigitalOcean's own when "") with token; DigitalOcean's
// clusters are found in any region, so region is not read.
func (Driver) Upgrades(base, token, _ string) upgrade.Cloud { return NewUpgrades(base, token) }

// NewUpgrades is DigitalOcean's API at base (DigitalOcean's own when "") with token.
func NewUpgrades(base, token string) *Upgrades {
	return &Upgrades{api: New(base, token, Options{Options: cloudapi.Asking()}), LintWait: 2 * time.Minute}
}

// Find is the cluster with id, or when id is "" or names no cluster, the one named name in
// region; several of one name are an error.
func (d *Upgrades) Find(ctx context.Context, id, name, region string) (upgrade.Live, bool, error) {
	if id != "" {
		cl, err := d.api.Cluster(ctx, id)
		if err == nil {
			return upgrade.Live{ID: cl.ID, Version: cl.Version}, true, nil
		}
		if !cloudapi.IsNotFound(err) {
			return upgrade.Live{}, false, err
		}
	}
	var found []upgrade.Live
	pages := 0
	err := d.api.WalkClusters(ctx, func(page []Cluster) bool {
		for _, c := range page {
			if c.Name == name && (region == "" || c.Region == region) {
				found = append(found, upgrade.Live{ID: c.ID, Version: c.Version})
			}
		}
		pages++
		return pages < upgradeMaxPages
	})
	if err != nil {
		return upgrade.Live{}, false, err
	}
	switch len(found) {
	case 0:
		return upgrade.Live{}, false, nil
	case 1:
		return found[0], true, nil
	}
	return upgrade.Live{}, false, errors.Errorf("DigitalOcean holds %d clusters named %s in %s: adopt or delete the others first", len(found), name, region)
}

// Offer reads the cluster's available upgrades (GET /v2/kubernetes/clusters/{id}/upgrades) and
// every offered version (GET /v2/kubernetes/options): DigitalOcean goes up one minor at a time,
// from the latest patch of the running minor only.
func (d *Upgrades) Offer(ctx context.Context, live upgrade.Live) (upgrade.Offer, error) {
	up, err := d.api.Upgrades(ctx, live.ID)
	if err != nil {
		return upgrade.Offer{}, err
	}
	cat, err := catalogue(ctx, d.api)
	if err != nil {
		return upgrade.Offer{}, err
	}
	versions := make([]string, 0, len(cat.Versions))
	for _, v := range cat.Versions {
		versions = append(versions, v.Version)
	}
	return UpgradeOffer(Slugs(up), versions), nil
}

// UpgradeOffer is DigitalOcean's offer to a cluster: next are its available upgrades (nil when
// not read), versions every slug DigitalOcean offers. DigitalOcean goes to the next minor only
// from the latest patch of the running one (PatchFirst). upgrade plan (Offer) and the cluster
// module's check at preview both build their offer here, so that they name one first step.
func UpgradeOffer(next, versions []string) upgrade.Offer {
	return upgrade.Offer{Next: next, Versions: versions, PatchFirst: true}
}

// Lint runs DigitalOcean's clusterlint on the cluster (POST .../clusterlint) and reads its
// results (GET .../clusterlint?run_id=), waiting while they are not ready.
func (d *Upgrades) Lint(ctx context.Context, live upgrade.Live) ([]upgrade.Diagnostic, error) {
	runID, err := d.api.RunClusterlint(ctx, live.ID)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(d.LintWait)
	for {
		res, err := d.api.ClusterlintResults(ctx, live.ID, runID)
		// DigitalOcean answers 404 while a run has no results yet.
		if (cloudapi.IsNotFound(err) || (err == nil && res.CompletedAt == "" && res.Diagnostics == nil)) && time.Now().Before(deadline) {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(2 * time.Second):
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		out := make([]upgrade.Diagnostic, 0, len(res.Diagnostics))
		for _, dg := range res.Diagnostics {
			obj := dg.Object.Kind + " " + dg.Object.Name
			if dg.Object.Namespace != "" {
				obj = dg.Object.Kind + " " + dg.Object.Namespace + "/" + dg.Object.Name
			}
			out = append(out, upgrade.Diagnostic{Check: dg.CheckName, Severity: dg.Severity, Message: dg.Message, Object: strings.TrimSpace(obj)})
		}
		return out, nil
	}
}

// Kubeconfig is the cluster's kubeconfig from DigitalOcean's kubeconfig endpoint, by
// pkg/cloud/kubeconfig's rules.
func (d *Upgrades) Kubeconfig(ctx context.Context, live upgrade.Live) ([]byte, error) {
	return d.api.Kubeconfig(ctx, live.ID)
}

// Objects lists the cluster's objects through its kubeconfig, kept in memory.
func (d *Upgrades) Objects(ctx context.Context, live upgrade.Live) (upgrade.Lister, error) {
	kc, err := d.Kubeconfig(ctx, live)
	if err != nil {
		return nil, err
	}
	return kube.Lister(kc)
}

// Catalogue reads DigitalOcean's versions, regions and node sizes (GET /v2/kubernetes/options)
// at base with token.
func (Driver) Catalogue(ctx context.Context, base, token string) (cost.Catalogue, error) {
	return catalogue(ctx, New(base, token, Options{Options: cloudapi.Asking()}))
}

// catalogue reads the Kubernetes options through api.
func catalogue(ctx context.Context, api *Client) (cost.Catalogue, error) {
	opts, err := api.Options(ctx)
	if err != nil {
		return cost.Catalogue{}, err
	}
	c := cost.Catalogue{Sizes: []string{}, Regions: []string{}}
	for _, v := range opts.Versions {
		c.Versions = append(c.Versions, cost.CatalogueVersion{Version: v.Slug})
	}
	for _, s := range opts.Sizes {
		c.Sizes = append(c.Sizes, s.Slug)
	}
	for _, r := range opts.Regions {
		c.Regions = append(c.Regions, strings.ToLower(r.Slug))
	}
	return c, nil
}

// Health reads the cluster (GET /v2/kubernetes/clusters/{id}): its version, its status.state and
// its pools' nodes' states. godo names the cluster's states provisioning, running, degraded,
// error, deleted, upgrading and invalid; a node's are provisioning, running, draining and
// deleting.
func (d *Upgrades) Health(ctx context.Context, live upgrade.Live) (upgrade.Health, error) {
	cl, err := d.api.Cluster(ctx, live.ID)
	if err != nil {
		return upgrade.Health{}, err
	}
	h := upgrade.Health{Version: cl.Version}
	if cl.Status != nil {
		h.State = cl.Status.State
	}
	switch h.State {
	case "running":
		h.Phase = upgrade.Settled
	case "degraded", "error", "deleted", "invalid":
		h.Phase = upgrade.Broken
	default:
		h.Phase = upgrade.Moving
	}
	for _, p := range cl.NodePools {
		for _, n := range p.Nodes {
			h.Nodes++
			if n.Status.State == "running" {
				h.NodesReady++
			}
		}
	}
	return h, nil
}
