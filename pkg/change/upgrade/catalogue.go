package upgrade

import (
	"context"
	"net/http"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/pkg/errors"
)

// Catalogue reads DigitalOcean's versions, regions and node sizes (GET /v2/kubernetes/options).
func (d *DigitalOcean) Catalogue(ctx context.Context) (cost.Catalogue, error) {
	var opts struct {
		Options struct {
			Versions []doVersion `json:"versions"`
			Sizes    []struct {
				Slug string `json:"slug"`
			} `json:"sizes"`
			Regions []struct {
				Slug string `json:"slug"`
			} `json:"regions"`
		} `json:"options"`
	}
	if err := d.api.Do(ctx, http.MethodGet, "/v2/kubernetes/options", nil, &opts); err != nil {
		return cost.Catalogue{}, errors.Wrap(err, "read DigitalOcean's Kubernetes options")
	}
	c := cost.Catalogue{Sizes: []string{}, Regions: []string{}}
	for _, v := range opts.Options.Versions {
		c.Versions = append(c.Versions, cost.CatalogueVersion{Version: v.Slug})
	}
	for _, s := range opts.Options.Sizes {
		c.Sizes = append(c.Sizes, s.Slug)
	}
	for _, r := range opts.Options.Regions {
		c.Regions = append(c.Regions, strings.ToLower(r.Slug))
	}
	return c, nil
}

// Catalogue reads Civo's Kubernetes versions (GET /v2/kubernetes/versions), each with its
// distribution, read from its name when the list does not say, and its regions (GET /v2/regions),
// their codes in lower case as manifests write them (Civo matches them in any case).
func (c *Civo) Catalogue(ctx context.Context) (cost.Catalogue, error) {
	var versions []struct {
		Version     string `json:"version"`
		Type        string `json:"type"`
		ClusterType string `json:"clusterType"`
	}
	if err := c.api.Do(ctx, http.MethodGet, "/v2/kubernetes/versions", nil, &versions); err != nil {
		return cost.Catalogue{}, errors.Wrap(err, "read Civo's Kubernetes versions")
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
	var regions []struct {
		Code string `json:"code"`
	}
	if err := c.api.Do(ctx, http.MethodGet, "/v2/regions", nil, &regions); err != nil {
		return cost.Catalogue{}, errors.Wrap(err, "read Civo's regions")
	}
	out.Regions = []string{}
	for _, r := range regions {
		out.Regions = append(out.Regions, strings.ToLower(r.Code))
	}
	return out, nil
}
