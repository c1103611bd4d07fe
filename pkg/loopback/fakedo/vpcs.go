package fakedo

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/digitalocean/godo"
)

// vpcAPI serves the account's VPCs, /v2/vpcs: each region's default one, computed, and those
// created or seeded.
type vpcAPI struct{ *store }

// find finds a created, seeded or default VPC.
func (d vpcAPI) find(id string) (godo.VPC, bool) {
	if v, ok := d.vpcs[id]; ok {
		return v, true
	}
	for i, r := range d.regions {
		if DefaultVPC(r) == id {
			return d.defaultVPC(i, r), true
		}
	}
	return godo.VPC{}, false
}

func (d vpcAPI) defaultVPC(i int, region string) godo.VPC {
	return d.newVPC(DefaultVPC(region), "default-"+region, region, fmt.Sprintf("10.%d.0.0/20", 100+i%100), true)
}

func (d vpcAPI) newVPC(id, name, region, ipRange string, isDefault bool) godo.VPC {
	return godo.VPC{ID: id, URN: "do:vpc:" + id, Name: name, IPRange: ipRange, RegionSlug: region, CreatedAt: d.start, Default: isDefault}
}

// all are each region's default VPC, then the created and seeded ones by id.
func (d vpcAPI) all() []godo.VPC {
	out := make([]godo.VPC, 0, len(d.regions)+len(d.vpcs))
	for i, r := range d.regions {
		out = append(out, d.defaultVPC(i, r))
	}
	for _, id := range slices.Sorted(maps.Keys(d.vpcs)) {
		out = append(out, d.vpcs[id])
	}
	return out
}

func (d vpcAPI) list(w http.ResponseWriter, r *http.Request) {
	all := d.all()
	lo, hi, links := paginate(r, len(all))
	writeJSON(w, http.StatusOK, map[string]any{
		"vpcs":  all[lo:hi],
		"links": links,
		"meta":  map[string]int{"total": len(all)},
	})
}

func (d vpcAPI) get(w http.ResponseWriter, id string) {
	v, ok := d.find(id)
	if !ok {
		d.notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"vpc": v})
}

func (d vpcAPI) create(w http.ResponseWriter, body []byte) {
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
