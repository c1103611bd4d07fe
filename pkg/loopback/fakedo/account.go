package fakedo

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/digitalocean/godo"
)

// options are the versions (latest first), regions and sizes a create may use.
func (d *DO) options(w http.ResponseWriter) {
	opts := godo.KubernetesOptions{
		Versions: []*godo.KubernetesVersion{},
		Regions:  []*godo.KubernetesRegion{},
		Sizes:    []*godo.KubernetesNodeSize{},
	}
	for _, v := range d.sortedVersions() {
		opts.Versions = append(opts.Versions, kubernetesVersion(v))
	}
	for _, r := range d.regions {
		name := regionNames[r]
		if name == "" {
			name = r
		}
		opts.Regions = append(opts.Regions, &godo.KubernetesRegion{Name: name, Slug: r})
	}
	for _, s := range d.sizes {
		opts.Sizes = append(opts.Sizes, &godo.KubernetesNodeSize{Name: strings.ToUpper(s), Slug: s})
	}
	writeJSON(w, http.StatusOK, map[string]any{"options": opts})
}

// getRegistry is the account's container registry, which the fake names after nothing in
// particular; 404 when SetRegistry(false).
func (d *DO) getRegistry(w http.ResponseWriter) {
	if !d.registry {
		d.fail(w, http.StatusNotFound, "registry not found")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"registry": godo.Registry{
		Name:                       "fakedo-registry",
		Region:                     "nyc3",
		CreatedAt:                  d.start,
		StorageUsageBytesUpdatedAt: d.start,
	}})
}

// integrateRegistry turns the registry integration of the clusters in the body on or off; the
// fake refuses both without a registry (404, as the registry is what is missing), and leaves
// every cluster alone when one of them does not exist.
func (d *DO) integrateRegistry(w http.ResponseWriter, body []byte, on bool) {
	if !d.registry {
		d.fail(w, http.StatusNotFound, "registry not found")
		return
	}
	var req godo.KubernetesClusterRegistryRequest
	if len(body) > 0 {
		if err := json.Unmarshal(body, &req); err != nil {
			d.fail(w, http.StatusBadRequest, "invalid request body: %v", err)
			return
		}
	}
	for _, id := range req.ClusterUUIDs {
		if _, ok := d.clusters[id]; !ok {
			d.fail(w, http.StatusNotFound, "cluster %s not found", id)
			return
		}
	}
	for _, id := range req.ClusterUUIDs {
		d.clusters[id].c.RegistryEnabled = on
		d.clusters[id].c.UpdatedAt = now()
	}
	w.WriteHeader(http.StatusNoContent)
}

// allVPCs are each region's default VPC, then the created and seeded ones by id.
func (d *DO) allVPCs() []godo.VPC {
	out := make([]godo.VPC, 0, len(d.regions)+len(d.vpcs))
	for i, r := range d.regions {
		out = append(out, d.defaultVPC(i, r))
	}
	for _, id := range slices.Sorted(maps.Keys(d.vpcs)) {
		out = append(out, d.vpcs[id])
	}
	return out
}

func (d *DO) listVPCs(w http.ResponseWriter, r *http.Request) {
	all := d.allVPCs()
	lo, hi, links := paginate(r, len(all))
	writeJSON(w, http.StatusOK, map[string]any{
		"vpcs":  all[lo:hi],
		"links": links,
		"meta":  map[string]int{"total": len(all)},
	})
}

func (d *DO) getVPC(w http.ResponseWriter, id string) {
	v, ok := d.vpc(id)
	if !ok {
		d.notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"vpc": v})
}

func (d *DO) createVPC(w http.ResponseWriter, body []byte) {
	var req godo.VPCCreateRequest
	if err := json.Unmarshal(body, &req); err != nil {
		d.fail(w, http.StatusBadRequest, "invalid request body: %v", err)
		return
	}
	switch {
	case req.Name == "":
		d.invalid(w, "validation error: name is required")
		return
	case !slices.Contains(d.regions, req.RegionSlug):
		d.invalid(w, "validation error: invalid region")
		return
	}
	ipRange := req.IPRange
	if ipRange == "" {
		ipRange = "10.140.0.0/20"
	}
	id := newUUID()
	v := d.newVPC(id, req.Name, req.RegionSlug, ipRange, false)
	v.Description = req.Description
	v.CreatedAt = now()
	d.vpcs[id] = v
	writeJSON(w, http.StatusCreated, map[string]any{"vpc": v})
}

// listSizes is the Droplet sizes the fake accepts, each with its prices (SetPrice), on one page.
func (d *DO) listSizes(w http.ResponseWriter) {
	sizes := []godo.Size{}
	for _, slug := range d.sizes {
		monthly, ok := d.prices[slug]
		if !ok {
			monthly = DefaultPrice
		}
		sizes = append(sizes, withShape(godo.Size{Slug: slug, PriceMonthly: monthly, PriceHourly: monthly / 672, Available: true,
			Regions: slices.Clone(d.regions)}))
	}
	writeJSON(w, http.StatusOK, map[string]any{"sizes": sizes, "links": map[string]any{}, "meta": map[string]any{"total": len(sizes)}})
}
