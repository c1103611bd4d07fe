package fakedo

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/digitalocean/godo"
)

// Account is what the account offers and holds beside its clusters: the versions, sizes and regions
// a create may use, the sizes' prices, its container registry and VPCs (vpcAPI). Its exported
// methods take the server's Mu; the others run with it held.
type Account struct{ *store }

// SetVersions replaces the version slugs the fake offers.
func (d Account) SetVersions(slugs ...string) { d.set(func() { d.versions = slices.Clone(slugs) }) }

// SetSizes replaces the droplet sizes the fake accepts for nodes.
func (d Account) SetSizes(slugs ...string) { d.set(func() { d.sizes = slices.Clone(slugs) }) }

// DefaultPrice is the monthly price /v2/sizes gives a size SetPrice did not price: a round figure
// no real size has, so that a test can tell the API's price from a table's.
const DefaultPrice = 10

// SetPrice sets the monthly price /v2/sizes gives a size (its hourly price is that / 672).
func (d Account) SetPrice(slug string, monthly float64) {
	d.set(func() {
		if d.prices == nil {
			d.prices = map[string]float64{}
		}
		d.prices[slug] = monthly
	})
}

// SetRegions replaces the regions the fake accepts; each has a default VPC.
func (d Account) SetRegions(slugs ...string) { d.set(func() { d.regions = slices.Clone(slugs) }) }

// SetRegistry says whether the account has a container registry (it has one by default).
func (d Account) SetRegistry(has bool) { d.set(func() { d.registry = has }) }

// SeedVPC adds a VPC in region, as if created earlier.
func (d Account) SeedVPC(id, region string) {
	d.set(func() {
		d.vpcs[id] = d.vpcAPI.newVPC(id, "vpc-"+region+"-"+id[:min(8, len(id))], region, "10.120.0.0/20", false)
	})
}

func (d Account) firstRegion() string {
	if len(d.regions) > 0 {
		return d.regions[0]
	}
	return "nyc1"
}

// options are the versions (latest first), regions and sizes a create may use.
func (d Account) options(w http.ResponseWriter) {
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
func (d Account) getRegistry(w http.ResponseWriter) {
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
func (d Account) integrateRegistry(w http.ResponseWriter, body []byte, on bool) {
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

// listSizes is the Droplet sizes the fake accepts, each with its prices (SetPrice), on one page.
func (d Account) listSizes(w http.ResponseWriter) {
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

// get answers GET /v2/account: the account's own facts, as godo's Account decodes them. A client
// may ask it only for the headers every answer carries (CountHourly).
func (d Account) get(w http.ResponseWriter) {
	writeJSON(w, http.StatusOK, map[string]godo.Account{"account": {DropletLimit: 25, FloatingIPLimit: 3, VolumeLimit: 100,
		Email: "loopback@clusterplane.invalid", UUID: "b6fr89dbf6d9156cace5f3c78dc9851d957381ef", EmailVerified: true, Status: "active"}})
}
