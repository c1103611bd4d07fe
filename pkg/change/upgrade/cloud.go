package upgrade

import (
	"context"
	"strings"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/pkg/errors"
)

// Cloud is what the plan asks a cloud about one cluster.
type Cloud interface {
	// Find is the live cluster with id (its stack's), or when id is "" or names no cluster, the
	// one named name in region: its id and running version; ok is false when there is none.
	// Several of one name are an error.
	Find(ctx context.Context, id, name, region string) (live Live, ok bool, err error)
	// Offer is what the cloud lets the cluster upgrade to.
	Offer(ctx context.Context, live Live) (Offer, error)
	// Lint is the cloud's own checks of the cluster before an upgrade; nil when it has none.
	Lint(ctx context.Context, live Live) ([]Diagnostic, error)
	// Kubeconfig is the cluster's kubeconfig, read from the cloud, kept in memory.
	Kubeconfig(ctx context.Context, live Live) ([]byte, error)
}

// Live is a running cluster as the cloud reports it.
type Live struct {
	ID      string `json:"id"`
	Version string `json:"version"`
	// Distribution is Civo's cluster type (k3s, talos); "" on DigitalOcean.
	Distribution string `json:"-"`
}

// Diagnostic is one finding of the cloud's pre-upgrade checks (DigitalOcean's clusterlint).
type Diagnostic struct {
	Check    string `json:"check"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Object   string `json:"object,omitempty"`
}

// transport is how upgrade asks either cloud (see cloudapi: the token appears in no error). A 429
// or a 5xx is asked again, a few times, as the clouds ask clients to.
func transport() cloudapi.Options {
	return cloudapi.Options{
		Timeout: 30 * time.Second,
		Retry:   cloudapi.Backoff(3, 500*time.Millisecond),
	}
}

// The pages Find reads at most: 10,000 clusters of either cloud. Past them it stops looking
// without an error, as its own page loop did before the clients moved to pkg/cloud.
const (
	doMaxPages   = 50
	civoMaxPages = 100
)

// DigitalOcean is DigitalOcean's Kubernetes API.
type DigitalOcean struct {
	api *digitalocean.Client
	// LintWait bounds the wait for a clusterlint run's results.
	LintWait time.Duration
}

// NewDigitalOcean is DigitalOcean's API at base (DigitalOcean's own when "") with token.
func NewDigitalOcean(base, token string) *DigitalOcean {
	return &DigitalOcean{api: digitalocean.New(base, token, digitalocean.Options{Options: transport()}), LintWait: 2 * time.Minute}
}

func (d *DigitalOcean) Find(ctx context.Context, id, name, region string) (Live, bool, error) {
	if id != "" {
		cl, err := d.api.Cluster(ctx, id)
		if err == nil {
			return Live{ID: cl.ID, Version: cl.Version}, true, nil
		}
		if !cloudapi.IsNotFound(err) {
			return Live{}, false, err
		}
	}
	var found []Live
	pages := 0
	err := d.api.WalkClusters(ctx, func(page []digitalocean.Cluster) bool {
		for _, c := range page {
			if c.Name == name && (region == "" || c.Region == region) {
				found = append(found, Live{ID: c.ID, Version: c.Version})
			}
		}
		pages++
		return pages < doMaxPages
	})
	if err != nil {
		return Live{}, false, err
	}
	switch len(found) {
	case 0:
		return Live{}, false, nil
	case 1:
		return found[0], true, nil
	}
	return Live{}, false, errors.Errorf("DigitalOcean holds %d clusters named %s in %s: adopt or delete the others first", len(found), name, region)
}

// Offer reads the cluster's available upgrades (GET /v2/kubernetes/clusters/{id}/upgrades) and
// every offered version (GET /v2/kubernetes/options): DigitalOcean goes up one minor at a time,
// from the latest patch of the running minor only.
func (d *DigitalOcean) Offer(ctx context.Context, live Live) (Offer, error) {
	up, err := d.api.Upgrades(ctx, live.ID)
	if err != nil {
		return Offer{}, err
	}
	cat, err := d.Catalogue(ctx)
	if err != nil {
		return Offer{}, err
	}
	versions := make([]string, 0, len(cat.Versions))
	for _, v := range cat.Versions {
		versions = append(versions, v.Version)
	}
	return Offer{Next: digitalocean.Slugs(up), Versions: versions, PatchFirst: true}, nil
}

// Lint runs DigitalOcean's clusterlint on the cluster (POST .../clusterlint) and reads its
// results (GET .../clusterlint?run_id=), waiting while they are not ready.
func (d *DigitalOcean) Lint(ctx context.Context, live Live) ([]Diagnostic, error) {
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
		out := make([]Diagnostic, 0, len(res.Diagnostics))
		for _, dg := range res.Diagnostics {
			obj := dg.Object.Kind + " " + dg.Object.Name
			if dg.Object.Namespace != "" {
				obj = dg.Object.Kind + " " + dg.Object.Namespace + "/" + dg.Object.Name
			}
			out = append(out, Diagnostic{Check: dg.CheckName, Severity: dg.Severity, Message: dg.Message, Object: strings.TrimSpace(obj)})
		}
		return out, nil
	}
}

// Kubeconfig is the cluster's kubeconfig from DigitalOcean's kubeconfig endpoint, by
// pkg/cloud/kubeconfig's rules.
func (d *DigitalOcean) Kubeconfig(ctx context.Context, live Live) ([]byte, error) {
	return d.api.Kubeconfig(ctx, live.ID)
}

// Civo is Civo's Kubernetes API in one region.
type Civo struct {
	api    *civo.Client
	region string
}

// NewCivo is Civo's API at base (Civo's own when "") with token, in region.
func NewCivo(base, token, region string) *Civo {
	return &Civo{api: civo.New(base, token, civo.Options{Options: transport()}), region: region}
}

func (c *Civo) Find(ctx context.Context, id, name, _ string) (Live, bool, error) {
	if id != "" {
		cl, err := c.api.Cluster(ctx, c.region, id)
		if err == nil {
			return Live{ID: cl.ID, Version: cl.Version, Distribution: cl.ClusterType}, true, nil
		}
		if !cloudapi.IsNotFound(err) {
			return Live{}, false, err
		}
	}
	var found []civo.Cluster
	pages := 0
	err := c.api.WalkClusters(ctx, c.region, func(page []civo.Cluster) bool {
		for _, cl := range page {
			if cl.Name == name {
				found = append(found, cl)
			}
		}
		pages++
		return pages < civoMaxPages
	})
	if err != nil {
		return Live{}, false, err
	}
	switch len(found) {
	case 0:
		return Live{}, false, nil
	case 1:
		cl := found[0]
		return Live{ID: cl.ID, Version: cl.Version, Distribution: cl.ClusterType}, true, nil
	}
	return Live{}, false, errors.Errorf("Civo holds %d clusters named %s in %s", len(found), name, c.region)
}

// Offer reads Civo's versions (GET /v2/kubernetes/versions): the stable ones of the cluster's
// distribution. Civo has no list of a cluster's upgrades: any later offered version goes.
func (c *Civo) Offer(ctx context.Context, live Live) (Offer, error) {
	cat, err := c.Catalogue(ctx)
	if err != nil {
		return Offer{}, err
	}
	var out []string
	for _, v := range cat.Versions {
		if v.Deprecated || (live.Distribution != "" && v.Distribution != live.Distribution) {
			continue
		}
		out = append(out, v.Version)
	}
	return Offer{Versions: out}, nil
}

// Lint: Civo runs no checks of its own before an upgrade.
func (c *Civo) Lint(context.Context, Live) ([]Diagnostic, error) { return nil, nil }

// Kubeconfig is the kubeconfig Civo gives with the cluster, read by pkg/cloud/kubeconfig's rules,
// which refuse a cluster without one. It is read again rather than kept from Find, so that a
// kubeconfig is held only for the cluster scanned and only while the plan scans it.
func (c *Civo) Kubeconfig(ctx context.Context, live Live) ([]byte, error) {
	return c.api.Kubeconfig(ctx, c.region, live.ID)
}
