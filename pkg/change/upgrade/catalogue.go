package upgrade

import (
	"context"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
)

// Catalogue reads DigitalOcean's versions, regions and node sizes (GET /v2/kubernetes/options).
func (d *DigitalOcean) Catalogue(ctx context.Context) (cost.Catalogue, error) {
	opts, err := d.api.Options(ctx)
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

// Catalogue reads Civo's Kubernetes versions (GET /v2/kubernetes/versions), each with its
// distribution, read from its name when the list does not say, and its regions (GET /v2/regions),
// their codes in lower case as manifests write them (Civo matches them in any case).
func (c *Civo) Catalogue(ctx context.Context) (cost.Catalogue, error) {
	versions, err := c.api.Versions(ctx)
	if err != nil {
		return cost.Catalogue{}, err
	}
	var out cost.Catalogue
	for _, v := range versions {
		typ := v.ClusterType
		if typ == "" {
			typ = "k3s"
			if strings.HasPrefix(v.Version, "talos") {
				typ = "talos"
			}
		}
		out.Versions = append(out.Versions, cost.CatalogueVersion{Version: v.Version, Distribution: typ, Deprecated: v.Type == "deprecated"})
	}
	regions, err := c.api.Regions(ctx)
	if err != nil {
		return cost.Catalogue{}, err
	}
	out.Regions = []string{}
	for _, r := range regions {
		out.Regions = append(out.Regions, strings.ToLower(r.Code))
	}
	return out, nil
}
