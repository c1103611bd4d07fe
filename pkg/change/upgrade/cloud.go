package upgrade

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/kubeconfig"
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

// newAPI is a cloud's JSON API with a bearer token (see cloudapi: the token appears in no error).
// A 429 or a 5xx is asked again, a few times, as the clouds ask clients to.
func newAPI(base, token string) *cloudapi.Client {
	return cloudapi.New(base, cloudapi.Bearer(token), cloudapi.Options{
		Timeout: 30 * time.Second,
		Retry:   cloudapi.Backoff(3, 500*time.Millisecond),
	})
}

// DigitalOcean is DigitalOcean's Kubernetes API.
type DigitalOcean struct {
	api *cloudapi.Client
	// LintWait bounds the wait for a clusterlint run's results.
	LintWait time.Duration
}

// NewDigitalOcean is DigitalOcean's API at base (DigitalOcean's own when "") with token.
func NewDigitalOcean(base, token string) *DigitalOcean {
	if base == "" {
		base = cloudapi.DigitalOcean.API
	}
	return &DigitalOcean{api: newAPI(base, token), LintWait: 2 * time.Minute}
}

func (d *DigitalOcean) Find(ctx context.Context, id, name, region string) (Live, bool, error) {
	if id != "" {
		var one struct {
			Cluster struct{ ID, Version string } `json:"kubernetes_cluster"`
		}
		err := d.api.Do(ctx, http.MethodGet, "/v2/kubernetes/clusters/"+url.PathEscape(id), nil, &one)
		if err == nil {
			return Live{ID: one.Cluster.ID, Version: one.Cluster.Version}, true, nil
		}
		if !cloudapi.IsNotFound(err) {
			return Live{}, false, errors.Wrapf(err, "read DigitalOcean cluster %s", id)
		}
	}
	var found []Live
	for page := 1; page <= 50; page++ {
		var list struct {
			Clusters []struct {
				ID, Name, Region, Version string
			} `json:"kubernetes_clusters"`
			Links struct {
				Pages struct {
					Next string `json:"next"`
				} `json:"pages"`
			} `json:"links"`
		}
		if err := d.api.Do(ctx, http.MethodGet, fmt.Sprintf("/v2/kubernetes/clusters?page=%d&per_page=200", page), nil, &list); err != nil {
			return Live{}, false, errors.Wrap(err, "list DigitalOcean's Kubernetes clusters")
		}
		for _, c := range list.Clusters {
			if c.Name == name && (region == "" || c.Region == region) {
				found = append(found, Live{ID: c.ID, Version: c.Version})
			}
		}
		if list.Links.Pages.Next == "" {
			break
		}
	}
	switch len(found) {
	case 0:
		return Live{}, false, nil
	case 1:
		return found[0], true, nil
	}
	return Live{}, false, errors.Errorf("DigitalOcean holds %d clusters named %s in %s: adopt or delete the others first", len(found), name, region)
}

type doVersion struct {
	Slug string `json:"slug"`
}

func slugs(vs []doVersion) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, v.Slug)
	}
	return out
}

// Offer reads the cluster's available upgrades (GET /v2/kubernetes/clusters/{id}/upgrades) and
// every offered version (GET /v2/kubernetes/options): DigitalOcean goes up one minor at a time,
// from the latest patch of the running minor only.
func (d *DigitalOcean) Offer(ctx context.Context, live Live) (Offer, error) {
	var up struct {
		Versions []doVersion `json:"available_upgrade_versions"`
	}
	if err := d.api.Do(ctx, http.MethodGet, "/v2/kubernetes/clusters/"+url.PathEscape(live.ID)+"/upgrades", nil, &up); err != nil {
		return Offer{}, errors.Wrap(err, "read the cluster's available upgrades")
	}
	cat, err := d.Catalogue(ctx)
	if err != nil {
		return Offer{}, err
	}
	versions := make([]string, 0, len(cat.Versions))
	for _, v := range cat.Versions {
		versions = append(versions, v.Version)
	}
	return Offer{Next: slugs(up.Versions), Versions: versions, PatchFirst: true}, nil
}

// Lint runs DigitalOcean's clusterlint on the cluster (POST .../clusterlint) and reads its
// results (GET .../clusterlint?run_id=), waiting while they are not ready.
func (d *DigitalOcean) Lint(ctx context.Context, live Live) ([]Diagnostic, error) {
	path := "/v2/kubernetes/clusters/" + url.PathEscape(live.ID) + "/clusterlint"
	var run struct {
		RunID string `json:"run_id"`
	}
	if err := d.api.Do(ctx, http.MethodPost, path, map[string]any{}, &run); err != nil {
		return nil, errors.Wrap(err, "run DigitalOcean's clusterlint")
	}
	deadline := time.Now().Add(d.LintWait)
	for {
		var res struct {
			CompletedAt string `json:"completed_at"`
			Diagnostics []struct {
				CheckName string `json:"check_name"`
				Severity  string `json:"severity"`
				Message   string `json:"message"`
				Object    struct {
					Name      string `json:"name"`
					Kind      string `json:"kind"`
					Namespace string `json:"namespace"`
				} `json:"object"`
			} `json:"diagnostics"`
		}
		err := d.api.Do(ctx, http.MethodGet, path+"?run_id="+url.QueryEscape(run.RunID), nil, &res)
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
			return nil, errors.Wrap(err, "read DigitalOcean's clusterlint results")
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
	return kubeconfig.DigitalOcean(ctx, func(ctx context.Context, path string) ([]byte, error) {
		var data []byte
		err := d.api.Do(ctx, http.MethodGet, path, nil, &data)
		return data, err
	}, live.ID)
}

// Civo is Civo's Kubernetes API in one region.
type Civo struct {
	api    *cloudapi.Client
	region string
}

// NewCivo is Civo's API at base (Civo's own when "") with token, in region.
func NewCivo(base, token, region string) *Civo {
	if base == "" {
		base = cloudapi.Civo.API
	}
	return &Civo{api: newAPI(base, token), region: region}
}

type civoCluster struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Version     string `json:"version"`
	ClusterType string `json:"cluster_type"`
}

func (c *Civo) Find(ctx context.Context, id, name, _ string) (Live, bool, error) {
	if id != "" {
		var cl civoCluster
		err := c.api.Do(ctx, http.MethodGet, "/v2/kubernetes/clusters/"+url.PathEscape(id)+"?region="+url.QueryEscape(c.region), nil, &cl)
		if err == nil {
			return Live{ID: cl.ID, Version: cl.Version, Distribution: cl.ClusterType}, true, nil
		}
		if !cloudapi.IsNotFound(err) {
			return Live{}, false, errors.Wrapf(err, "read Civo cluster %s", id)
		}
	}
	var found []civoCluster
	for page := 1; page <= 100; page++ {
		var list struct {
			Pages int           `json:"pages"`
			Items []civoCluster `json:"items"`
		}
		q := url.Values{"region": {c.region}, "page": {fmt.Sprint(page)}, "per_page": {"100"}}
		if err := c.api.Do(ctx, http.MethodGet, "/v2/kubernetes/clusters?"+q.Encode(), nil, &list); err != nil {
			return Live{}, false, errors.Wrap(err, "list Civo's Kubernetes clusters")
		}
		for _, cl := range list.Items {
			if cl.Name == name {
				found = append(found, cl)
			}
		}
		if page >= list.Pages || len(list.Items) == 0 {
			break
		}
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
	return kubeconfig.Civo(ctx, func(ctx context.Context, path string) ([]byte, error) {
		var data []byte
		err := c.api.Do(ctx, http.MethodGet, path+"?region="+url.QueryEscape(c.region), nil, &data)
		return data, err
	}, live.ID)
}
