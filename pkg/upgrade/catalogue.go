package upgrade

import (
	"context"
	"net/http"
	"strings"

	"github.com/pkg/errors"
)

// Catalogue is what a cloud's API offers new clusters and node pools now, in one call.
type Catalogue struct {
	// Versions are the Kubernetes versions the API lists.
	Versions []CatalogueVersion
	// Sizes are the node sizes a pool may use; nil when the call does not list them (Civo's
	// versions call has no sizes).
	Sizes []string
}

// CatalogueVersion is one Kubernetes version a cloud lists.
type CatalogueVersion struct {
	Version string
	// Distribution is Civo's cluster type (k3s, talos); "" on DigitalOcean.
	Distribution string
	// Deprecated tells that the cloud lists the version but creates no cluster with it (Civo).
	Deprecated bool
}

// Catalogue reads DigitalOcean's versions and node sizes (GET /v2/kubernetes/options).
func (d *DigitalOcean) Catalogue(ctx context.Context) (Catalogue, error) {
	var opts struct {
		Options struct {
			Versions []doVersion `json:"versions"`
			Sizes    []struct {
				Slug string `json:"slug"`
			} `json:"sizes"`
		} `json:"options"`
	}
	if err := d.api.call(ctx, http.MethodGet, "/v2/kubernetes/options", nil, &opts); err != nil {
		return Catalogue{}, errors.Wrap(err, "read DigitalOcean's Kubernetes options")
	}
	c := Catalogue{Sizes: []string{}}
	for _, v := range opts.Options.Versions {
		c.Versions = append(c.Versions, CatalogueVersion{Version: v.Slug})
	}
	for _, s := range opts.Options.Sizes {
		c.Sizes = append(c.Sizes, s.Slug)
	}
	return c, nil
}

// Catalogue reads Civo's Kubernetes versions (GET /v2/kubernetes/versions), each with its
// distribution, read from its name when the list does not say.
func (c *Civo) Catalogue(ctx context.Context) (Catalogue, error) {
	var versions []struct {
		Version     string `json:"version"`
		Type        string `json:"type"`
		ClusterType string `json:"clusterType"`
	}
	if err := c.api.call(ctx, http.MethodGet, "/v2/kubernetes/versions", nil, &versions); err != nil {
		return Catalogue{}, errors.Wrap(err, "read Civo's Kubernetes versions")
	}
	var out Catalogue
	for _, v := range versions {
		typ := v.ClusterType
		if typ == "" {
			typ = "k3s"
			if strings.HasPrefix(v.Version, "talos") {
				typ = "talos"
			}
		}
		out.Versions = append(out.Versions, CatalogueVersion{Version: v.Version, Distribution: typ, Deprecated: v.Type == "deprecated"})
	}
	return out, nil
}
