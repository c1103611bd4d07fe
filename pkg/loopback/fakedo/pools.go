package fakedo

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"

	"github.com/digitalocean/godo"
)

// newPool is a pool as a create asks for it; fillPool gives it its id, tags and nodes.
func newPool(req godo.KubernetesNodePoolCreateRequest) *godo.KubernetesNodePool {
	p := &godo.KubernetesNodePool{
		Name:      req.Name,
		Size:      req.Size,
		Count:     req.Count,
		Tags:      req.Tags,
		Labels:    req.Labels,
		Taints:    req.Taints,
		AutoScale: req.AutoScale,
		MinNodes:  req.MinNodes,
		MaxNodes:  req.MaxNodes,
	}
	// An autoscaled pool created without a count starts at its minimum.
	if p.AutoScale && p.Count == 0 {
		p.Count = p.MinNodes
	}
	if len(p.Labels) == 0 {
		p.Labels = nil
	}
	if len(p.Taints) == 0 {
		p.Taints = nil
	}
	return p
}

// checkPool reports, in the fake's wording, what DigitalOcean would refuse in a node pool.
func (d *DO) checkPool(name, size string, count int, autoScale bool, minNodes, maxNodes int) string {
	switch {
	case name == "":
		return "validation error: node pool name is required"
	case !slices.Contains(d.sizes, size):
		return "validation error: invalid size"
	case count < 0:
		return "validation error: node pool count must not be negative"
	case autoScale && (minNodes < 0 || maxNodes < 1 || minNodes > maxNodes):
		return "validation error: invalid autoscaling range: need 0 <= min_nodes <= max_nodes and max_nodes >= 1"
	case !autoScale && count < 1:
		return "validation error: node pool count must be at least 1"
	}
	return ""
}

// pool finds a cluster's pool; nil when either does not exist.
func (d *DO) pool(clusterID, poolID string) *godo.KubernetesNodePool {
	if cl, ok := d.clusters[clusterID]; ok {
		return poolIn(&cl.c, poolID)
	}
	return nil
}

func poolIn(c *godo.KubernetesCluster, poolID string) *godo.KubernetesNodePool {
	for _, p := range c.NodePools {
		if p.ID == poolID {
			return p
		}
	}
	return nil
}

func (d *DO) getPool(w http.ResponseWriter, clusterID, poolID string) {
	cl, ok := d.clusters[clusterID]
	p := d.pool(clusterID, poolID)
	if !ok || p == nil {
		d.notFound(w)
		return
	}
	d.advancePool(cl, p)
	writeJSON(w, http.StatusOK, map[string]any{"node_pool": p})
}

func (d *DO) listPools(w http.ResponseWriter, r *http.Request, clusterID string) {
	cl, ok := d.clusters[clusterID]
	if !ok {
		d.notFound(w)
		return
	}
	lo, hi, links := paginate(r, len(cl.c.NodePools))
	writeJSON(w, http.StatusOK, map[string]any{
		"node_pools": append([]*godo.KubernetesNodePool{}, cl.c.NodePools[lo:hi]...),
		"links":      links,
		"meta":       map[string]int{"total": len(cl.c.NodePools)},
	})
}

func (d *DO) createPool(w http.ResponseWriter, clusterID string, body []byte) {
	cl, ok := d.clusters[clusterID]
	if !ok {
		d.notFound(w)
		return
	}
	var req godo.KubernetesNodePoolCreateRequest
	if err := json.Unmarshal(body, &req); err != nil {
		d.fail(w, http.StatusBadRequest, "invalid request body: %v", err)
		return
	}
	if msg := d.checkPool(req.Name, req.Size, req.Count, req.AutoScale, req.MinNodes, req.MaxNodes); msg != "" {
		d.invalid(w, "%s", msg)
		return
	}
	p := newPool(req)
	d.fillPool(clusterID, p, stateProvisioning)
	cl.poolPending[p.ID] = d.provisionPolls
	cl.c.NodePools = append(cl.c.NodePools, p)
	cl.c.UpdatedAt = now()
	writeJSON(w, http.StatusCreated, map[string]any{"node_pool": p})
}

// updatePool changes only the keys present, reading nulls as the package comment says; a new
// count adds provisioning nodes or removes the last ones.
func (d *DO) updatePool(w http.ResponseWriter, clusterID, poolID string, body []byte) {
	cl, ok := d.clusters[clusterID]
	cur := d.pool(clusterID, poolID)
	if !ok || cur == nil {
		d.notFound(w)
		return
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(body, &keys); err != nil {
		d.fail(w, http.StatusBadRequest, "invalid request body: %v", err)
		return
	}
	p := clone(*cur)
	for key, raw := range keys {
		if err := applyPoolKey(&p, key, raw); err != nil {
			d.fail(w, http.StatusBadRequest, "invalid request body: %s: %v", key, err)
			return
		}
	}
	if msg := d.checkPool(p.Name, p.Size, p.Count, p.AutoScale, p.MinNodes, p.MaxNodes); msg != "" {
		d.invalid(w, "%s", msg)
		return
	}
	p.Tags = poolTags(p.Tags, clusterID)
	if p.Count != len(p.Nodes) {
		d.resize(&p, stateProvisioning)
		cl.poolPending[p.ID] = d.provisionPolls
	}
	*cur = p
	cl.c.UpdatedAt = now()
	writeJSON(w, http.StatusAccepted, map[string]any{"node_pool": cur})
}

// applyPoolKey changes p as one key of an update says.
func applyPoolKey(p *godo.KubernetesNodePool, key string, raw json.RawMessage) error {
	if isNull(raw) {
		switch key {
		case "tags":
			p.Tags = nil
		case "labels":
			p.Labels = nil
		case "taints":
			p.Taints = nil
		}
		// Any other null says nothing.
		return nil
	}
	switch key {
	case "name":
		var name string
		if err := json.Unmarshal(raw, &name); err != nil {
			return err
		}
		p.Name = name
	case "count":
		return json.Unmarshal(raw, &p.Count)
	case "tags":
		p.Tags = nil
		return json.Unmarshal(raw, &p.Tags)
	case "labels":
		var labels map[string]string
		if err := json.Unmarshal(raw, &labels); err != nil {
			return err
		}
		p.Labels = nil
		if len(labels) > 0 {
			p.Labels = maps.Clone(labels)
		}
	case "taints":
		var taints []godo.Taint
		if err := json.Unmarshal(raw, &taints); err != nil {
			return err
		}
		p.Taints = nil
		if len(taints) > 0 {
			p.Taints = taints
		}
	case "auto_scale":
		return json.Unmarshal(raw, &p.AutoScale)
	case "min_nodes":
		return json.Unmarshal(raw, &p.MinNodes)
	case "max_nodes":
		return json.Unmarshal(raw, &p.MaxNodes)
	}
	// The size cannot change, and unknown keys are ignored.
	return nil
}

func (d *DO) deletePool(w http.ResponseWriter, clusterID, poolID string) {
	cl, ok := d.clusters[clusterID]
	if !ok || d.pool(clusterID, poolID) == nil {
		d.notFound(w)
		return
	}
	cl.c.NodePools = slices.DeleteFunc(cl.c.NodePools, func(p *godo.KubernetesNodePool) bool { return p.ID == poolID })
	delete(cl.poolPending, poolID)
	cl.c.UpdatedAt = now()
	w.WriteHeader(http.StatusNoContent)
}
