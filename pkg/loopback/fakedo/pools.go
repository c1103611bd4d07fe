package fakedo

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"

	"github.com/digitalocean/godo"
)

// poolAPI serves a cluster's node pools, /v2/kubernetes/clusters/{id}/node_pools, and their nodes
// (nodes.go).
type poolAPI struct{ *store }

// Pool is the node pool poolID of cluster clusterID, and whether it exists.
func (d *DO) Pool(clusterID, poolID string) (godo.KubernetesNodePool, bool) {
	defer d.s.lock()()
	if p := d.s.poolAPI.find(clusterID, poolID); p != nil {
		return clone(*p), true
	}
	return godo.KubernetesNodePool{}, false
}

// Pools are the node pools of a cluster, oldest first; none when it does not exist.
func (d *DO) Pools(clusterID string) []godo.KubernetesNodePool {
	defer d.s.lock()()
	cl, ok := d.s.clusters[clusterID]
	if !ok {
		return nil
	}
	out := make([]godo.KubernetesNodePool, 0, len(cl.c.NodePools))
	for _, p := range cl.c.NodePools {
		out = append(out, clone(*p))
	}
	return out
}

// PoolNamed is a cluster's node pool named name, and whether there is one.
func (d *DO) PoolNamed(clusterID, name string) (godo.KubernetesNodePool, bool) {
	defer d.s.lock()()
	if cl, ok := d.s.clusters[clusterID]; ok {
		for _, p := range cl.c.NodePools {
			if p.Name == name {
				return clone(*p), true
			}
		}
	}
	return godo.KubernetesNodePool{}, false
}

// EditPool changes a node pool behind its clients' backs, as EditCluster does a cluster. It
// tells whether the pool exists.
func (d *DO) EditPool(clusterID, poolID string, edit func(*godo.KubernetesNodePool)) bool {
	defer d.s.lock()()
	cl, ok := d.s.clusters[clusterID]
	if !ok {
		return false
	}
	for i, p := range cl.c.NodePools {
		if p.ID != poolID {
			continue
		}
		edited := clone(*p)
		edit(&edited)
		edited.ID = poolID
		d.s.poolAPI.fill(clusterID, &edited, stateRunning)
		cl.c.NodePools[i] = &edited
		cl.c.UpdatedAt = now()
		d.s.clusterAPI.forgetPending(cl)
		return true
	}
	return false
}

// newPool is a pool as a create asks for it; poolAPI.fill gives it its id, tags and nodes.
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

// check reports, in the fake's wording, what DigitalOcean would refuse in a node pool.
func (d poolAPI) check(name, size string, count int, autoScale bool, minNodes, maxNodes int) string {
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

// find finds a cluster's pool; nil when either does not exist.
func (d poolAPI) find(clusterID, poolID string) *godo.KubernetesNodePool {
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

func (d poolAPI) get(w http.ResponseWriter, clusterID, poolID string) {
	cl, ok := d.clusters[clusterID]
	p := d.find(clusterID, poolID)
	if !ok || p == nil {
		d.notFound(w)
		return
	}
	d.advance(cl, p)
	writeJSON(w, http.StatusOK, map[string]any{"node_pool": p})
}

func (d poolAPI) list(w http.ResponseWriter, r *http.Request, clusterID string) {
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

func (d poolAPI) create(w http.ResponseWriter, clusterID string, body []byte) {
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
	if msg := d.check(req.Name, req.Size, req.Count, req.AutoScale, req.MinNodes, req.MaxNodes); msg != "" {
		d.invalid(w, "%s", msg)
		return
	}
	p := newPool(req)
	d.fill(clusterID, p, stateProvisioning)
	cl.poolPending[p.ID] = d.provisionPolls
	cl.c.NodePools = append(cl.c.NodePools, p)
	cl.c.UpdatedAt = now()
	writeJSON(w, http.StatusCreated, map[string]any{"node_pool": p})
}

// update changes only the keys present, reading nulls as the package comment says; a new
// count adds provisioning nodes or removes the last ones.
func (d poolAPI) update(w http.ResponseWriter, clusterID, poolID string, body []byte) {
	cl, ok := d.clusters[clusterID]
	cur := d.find(clusterID, poolID)
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
	if msg := d.check(p.Name, p.Size, p.Count, p.AutoScale, p.MinNodes, p.MaxNodes); msg != "" {
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

func (d poolAPI) delete(w http.ResponseWriter, clusterID, poolID string) {
	cl, ok := d.clusters[clusterID]
	if !ok || d.find(clusterID, poolID) == nil {
		d.notFound(w)
		return
	}
	cl.c.NodePools = slices.DeleteFunc(cl.c.NodePools, func(p *godo.KubernetesNodePool) bool { return p.ID == poolID })
	delete(cl.poolPending, poolID)
	cl.c.UpdatedAt = now()
	w.WriteHeader(http.StatusNoContent)
}

// fill completes a pool: its id, DigitalOcean's tags, and as many nodes as its count, the
// new ones in state.
func (d poolAPI) fill(clusterID string, p *godo.KubernetesNodePool, state string) {
	if p.ID == "" {
		p.ID = newUUID()
	}
	p.Tags = poolTags(p.Tags, clusterID)
	d.resize(p, state)
	t := now()
	for _, n := range p.Nodes {
		if n.ID == "" {
			n.ID = newUUID()
		}
		if n.Name == "" {
			n.Name = nodeName(p.Name)
		}
		if n.Status == nil || n.Status.State == "" {
			n.Status = &godo.KubernetesNodeStatus{State: state}
		}
		if n.DropletID == "" {
			n.DropletID = d.newDropletID()
		}
		if n.CreatedAt.IsZero() {
			n.CreatedAt = t
		}
		if n.UpdatedAt.IsZero() {
			n.UpdatedAt = t
		}
	}
}

// resize gives a pool as many nodes as its count: the first ones stay, new ones are in state.
func (d poolAPI) resize(p *godo.KubernetesNodePool, state string) {
	if p.Count < 0 {
		p.Count = 0
	}
	if len(p.Nodes) > p.Count {
		p.Nodes = p.Nodes[:p.Count]
	}
	t := now()
	for len(p.Nodes) < p.Count {
		p.Nodes = append(p.Nodes, &godo.KubernetesNode{
			ID:        newUUID(),
			Name:      nodeName(p.Name),
			Status:    &godo.KubernetesNodeStatus{State: state},
			DropletID: d.newDropletID(),
			CreatedAt: t,
			UpdatedAt: t,
		})
	}
}
