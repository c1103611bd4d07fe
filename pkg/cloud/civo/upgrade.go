package civo

import (
	"context"
	"strings"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/kube"
)

// This file is Civo as an upgrade plan asks it (pkg/change/upgrade's Cloud) and its catalogue,
// as preview and up ask it: the requests are made here, and the plan reads their answers.

// upgradeMaxPages are the pages Find reads at most: 10,000 clusters. Past them it stops looking
// without an error.
const upgradeMaxPages = 100

// Upgrades is Civo's Kubernetes API in one region as an upgrade plan asks it.
type Upgrades struct {
	api    *Client
	region string
}

var _ upgrade.Cloud = (*Upgrades)(nil)

// Upgrades is Civo's API at base (Civo's own when "") with token, in region.
func (Driver) Upgrades(base, token, region string) upgrade.Cloud {
	return NewUpgrades(base, token, region)
}

// NewUpgrades is Civo's API at base (Civo's own when "") with token, in region.
func NewUpgrades(base, token, region string) *Upgrades {
	return &Upgrades{api: New(base, token, Options{Options: cloudapi.Asking()}), region: region}
}

// Find is the cluster with id, or when id is "" or names no cluster, the one named name in the
// region; several of one name are an error.
func (c *Upgrades) Find(ctx context.Context, id, name, _ string) (upgrade.Live, bool, error) {
	if id != "" {
		cl, err := c.api.Cluster(ctx, c.region, id)
		if err == nil {
			return upgrade.Live{ID: cl.ID, Version: cl.Version, Distribution: cl.ClusterType}, true, nil
		}
		if !cloudapi.IsNotFound(err) {
			return upgrade.Live{}, false, err
		}
	}
	var found []Cluster
	pages := 0
	err := c.api.WalkClusters(ctx, c.region, func(page []Cluster) bool {
		for _, cl := range page {
			if cl.Name == name {
				found = append(found, cl)
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
		cl := found[0]
		return upgrade.Live{ID: cl.ID, Version: cl.Version, Distribution: cl.ClusterType}, true, nil
	}
	return upgrade.Live{}, false, errors.Errorf("Civo holds %d clusters named %s in %s", len(found), name, c.region)
}

// Offer reads Civo's versions (GET /v2/kubernetes/versions): the stable ones of the cluster's
// distribution. Civo has no list of a cluster's upgrades: any later offered version goes.
func (c *Upgrades) Offer(ctx context.Context, live upgrade.Live) (upgrade.Offer, error) {
	cat, err := catalogue(ctx, c.api)
	if err != nil {
		return upgrade.Offer{}, err
	}
	var out []string
	for _, v := range cat.Versions {
		if v.Deprecated || (live.Distribution != "" && v.Distribution != live.Distribution) {
			continue
		}
		out = append(out, v.Version)
	}
	return upgrade.Offer{Versions: out}, nil
}

// Lint: Civo runs no checks of its own before an upgrade.
func (c *Upgrades) Lint(context.Context, upgrade.Live) ([]upgrade.Diagnostic, error) { return nil, nil }

// Kubeconfig is the kubeconfig Civo gives with the cluster, read by pkg/cloud/kubeconfig's rules,
// which refuse a cluster without one. It is read again rather than kept from Find, so that a
// kubeconfig is held only for the cluster scanned and only while the plan scans it.
func (c *Upgrades) Kubeconfig(ctx context.Context, live upgrade.Live) ([]byte, error) {
	return c.api.Kubeconfig(ctx, c.region, live.ID)
}

// Objects lists the cluster's objects through its kubeconfig, kept in memory.
func (c *Upgrades) Objects(ctx context.Context, live upgrade.Live) (upgrade.Lister, error) {
	kc, err := c.Kubeconfig(ctx, live)
	if err != nil {
		return nil, err
	}
	return kube.Lister(kc)
}

// Catalogue reads Civo's Kubernetes versions (GET /v2/kubernetes/versions) and its regions (GET
// /v2/regions) at base with token.
func (Driver) Catalogue(ctx context.Context, base, token string) (cost.Catalogue, error) {
	return catalogue(ctx, New(base, token, Options{Options: cloudapi.Asking()}))
}

// catalogue reads Civo's Kubernetes versions through api, each with its distribution, read from
// its name when the list does not say, and its regions, their codes in lower case as manifests
// write them (Civo matches them in any case).
func catalogue(ctx context.Context, api *Client) (cost.Catalogue, error) {
	versions, err := api.Versions(ctx)
	if err != nil {
		return cost.Catalogue{}, err
	}
	var out cost.Catalogue
	for _, v := range versions {
		typ := v.ClusterType
		if typ == "" {
			typ = DistributionOf(v.Version)
		}
		out.Versions = append(out.Versions, cost.CatalogueVersion{Version: v.Version, Distribution: typ, Deprecated: v.Type == "deprecated"})
	}
	regions, err := api.Regions(ctx)
	if err != nil {
		return cost.Catalogue{}, err
	}
	out.Regions = []string{}
	for _, r := range regions {
		out.Regions = append(out.Regions, strings.ToLower(r.Code))
	}
	return out, nil
}

// Health reads the cluster (GET /v2/kubernetes/clusters/{id}): its version, its status and its
// instances' statuses. terraform-provider-civo v1.1.4 waits for ACTIVE and takes BUILDING,
// AVAILABLE, UPGRADING and SCALING for a cluster still changing
// (civo/kubernetes/resource_kubernetes_cluster.go, its StateChangeConf); any other status is
// taken as failed here.
func (c *Upgrades) Health(ctx context.Context, live upgrade.Live) (upgrade.Health, error) {
	cl, err := c.api.Cluster(ctx, c.region, live.ID)
	if err != nil {
		return upgrade.Health{}, err
	}
	h := upgrade.Health{Version: cl.Version, State: cl.Status}
	switch cl.Status {
	case "ACTIVE":
		h.Phase = upgrade.Settled
	case "BUILDING", "AVAILABLE", "UPGRADING", "SCALING":
		h.Phase = upgrade.Moving
	default:
		h.Phase = upgrade.Broken
	}
	for _, n := range cl.Instances {
		h.Nodes++
		if n.Status == "ACTIVE" {
			h.NodesReady++
		}
	}
	return h, nil
}
