package fakecivo

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/civo/civogo"
	corev1 "k8s.io/api/core/v1"
)

// poolAPI serves a cluster's node pools, /v2/kubernetes/clusters/{id}/pools, and their instances
// (instances.go).
type poolAPI struct{ *store }

// Pool is the pool as Civo would report it, and whether it exists.
func (f *Civo) Pool(cid, id string) (civogo.KubernetesPool, bool) {
	f.s.srv.Mu.Lock()
	defer f.s.srv.Mu.Unlock()
	p, ok := f.s.pools[cid+"/"+id]
	if !ok {
		return civogo.KubernetesPool{}, false
	}
	return f.s.poolAPI.render(cid, p), true
}

// Pools counts the pools of every cluster.
func (f *Civo) Pools() int {
	f.s.srv.Mu.Lock()
	defer f.s.srv.Mu.Unlock()
	return len(f.s.pools)
}

// Scale sets a pool's node count behind its manager's back, as the console or the autoscaler
// would, its nodes ready.
func (f *Civo) Scale(cid, id string, n int) {
	f.s.locked(func() {
		if p, ok := f.s.pools[cid+"/"+id]; ok {
			p.setNodes(n, 0)
		}
	})
}

// Seed puts a ready pool into the fake, as if it had been created earlier. The cluster need not
// be known.
func (f *Civo) Seed(cid string, p civogo.KubernetesPool) {
	f.s.locked(func() {
		fp := &fakePool{pool: clonePool(p), seq: f.s.next()}
		fp.setNodes(p.Count, 0)
		f.s.pools[cid+"/"+p.ID] = fp
	})
}

// fakePool is a pool as the fake stores it; what a read derives (its nodes' status, Civo's own
// label) is computed when it is reported.
type fakePool struct {
	pool    civogo.KubernetesPool
	pending int
	seq     int
	// named is how many instance names the pool has given (setNodes).
	named int
}

// setNodes gives the pool n nodes: the first ones stay as they are (a node keeps its name for
// life, as Civo's instances do), new ones are named after a counter that never goes back, so a
// deleted instance's name is never given again (instances.go).
func (p *fakePool) setNodes(n, pending int) {
	p.pool.Count = n
	p.pending = pending
	p.pool.Instances = p.pool.Instances[:min(n, len(p.pool.Instances))]
	p.named = max(p.named, len(p.pool.Instances))
	for len(p.pool.Instances) < n {
		name := fmt.Sprintf("k3s-%s-node-%d", p.pool.ID, p.named)
		p.named++
		p.pool.Instances = append(p.pool.Instances, civogo.KubernetesInstance{ID: name, Hostname: name, Size: p.pool.Size})
	}
	p.pool.InstanceNames = nil
	for _, in := range p.pool.Instances {
		p.pool.InstanceNames = append(p.pool.InstanceNames, in.ID)
	}
}

// clonePool copies a pool so that no map or slice is shared.
func clonePool(p civogo.KubernetesPool) civogo.KubernetesPool {
	p.Labels = maps.Clone(p.Labels)
	p.Annotations = maps.Clone(p.Annotations)
	p.Taints = slices.Clone(p.Taints)
	p.InstanceNames = slices.Clone(p.InstanceNames)
	p.Instances = slices.Clone(p.Instances)
	for i := range p.Instances {
		p.Instances[i].Tags = slices.Clone(p.Instances[i].Tags)
	}
	return p
}

// userLabels drops the label Civo sets itself, which a client that read a pool may send back.
func userLabels(labels map[string]string) map[string]string {
	out := maps.Clone(labels)
	delete(out, civoPoolLabel)
	return out
}

// render is the pool as Civo reports it: Civo's own label added, each node ACTIVE unless it
// is still being built (a new or scaled pool, a cluster still building, NeverReady).
func (f poolAPI) render(cid string, p *fakePool) civogo.KubernetesPool {
	out := clonePool(p.pool)
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	out.Labels[civoPoolLabel] = p.pool.ID
	building := f.opts.NeverReady || p.pending > 0
	if fc, ok := f.clusters[cid]; ok && fc.building {
		building = true
	}
	for i := range out.Instances {
		out.Instances[i].Status = "ACTIVE"
		if building {
			out.Instances[i].Status = "BUILDING"
		}
	}
	return out
}

// of are the pools of cluster cid, oldest first.
func (f poolAPI) of(cid string) []*fakePool {
	var out []*fakePool
	for key, p := range f.pools {
		if strings.HasPrefix(key, cid+"/") {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// checkNew checks a pool about to be made.
func (f poolAPI) checkNew(p civogo.KubernetesClusterPoolConfig) *apiError {
	if p.Size == "" {
		return badRequest("parameter_size_missing", "pool %q has no size", p.ID)
	}
	if !f.catalogue.poolSize(p.Size) {
		return badRequest("database_size_not_found", "%s is not a Kubernetes node size Civo offers", p.Size)
	}
	if p.Count < 1 {
		return badRequest("database_kubernetes_cluster_invalid", "pool %q needs at least one node", p.ID)
	}
	return nil
}

// add makes a pool in cluster cid, its nodes building for pending polls.
func (f poolAPI) add(cid string, cfg civogo.KubernetesClusterPoolConfig, pending int) *fakePool {
	if cfg.ID == "" {
		cfg.ID = f.newID("pool")
	}
	p := &fakePool{seq: f.next(), pool: civogo.KubernetesPool{ID: cfg.ID, Size: cfg.Size, Labels: userLabels(cfg.Labels),
		Taints: slices.Clone(cfg.Taints), PublicIPNodePool: cfg.PublicIPNodePool}}
	p.setNodes(cfg.Count, pending)
	f.pools[cid+"/"+cfg.ID] = p
	return p
}

// serve answers /v2/kubernetes/clusters/{cid}/pools[/{pid}].
func (f poolAPI) serve(q *request, cid string, seg []string) {
	if _, ok := f.clusterAPI.in(cid, q.region, false); !ok && !f.opts.AnyCluster {
		f.fail(q.w, http.StatusNotFound, "database_kubernetes_cluster_not_found", "no Kubernetes cluster "+cid+" in "+q.region)
		return
	}
	if len(seg) == 0 {
		switch q.r.Method {
		case http.MethodGet:
			out := []civogo.KubernetesPool{}
			for _, p := range f.of(cid) {
				if p.pending > 0 {
					p.pending--
				}
				out = append(out, f.render(cid, p))
			}
			writeJSON(q.w, http.StatusOK, out)
		case http.MethodPost:
			f.create(q, cid)
		default:
			f.fail(q.w, http.StatusMethodNotAllowed, "method_not_allowed", q.r.Method+" "+q.r.URL.Path)
		}
		return
	}
	if len(seg) == 3 && seg[1] == "instances" && q.r.Method == http.MethodDelete {
		f.deleteInstance(q, cid, seg[0], seg[2])
		return
	}
	if len(seg) != 1 {
		f.fail(q.w, http.StatusNotFound, "not_found", "no such endpoint: "+q.r.URL.Path)
		return
	}
	key := cid + "/" + seg[0]
	p, ok := f.pools[key]
	if !ok {
		f.fail(q.w, http.StatusNotFound, "database_cluster_pool_not_found", "cluster "+cid+" has no pool "+seg[0])
		return
	}
	switch q.r.Method {
	case http.MethodGet:
		if p.pending > 0 {
			p.pending--
		}
		writeJSON(q.w, http.StatusOK, f.render(cid, p))
	case http.MethodPut:
		f.update(q, cid, p)
	case http.MethodDelete:
		delete(f.pools, key)
		writeJSON(q.w, http.StatusOK, civogo.SimpleResponse{Result: civogo.ResultSuccess})
	default:
		f.fail(q.w, http.StatusMethodNotAllowed, "method_not_allowed", q.r.Method+" "+q.r.URL.Path)
	}
}

func (f poolAPI) create(q *request, cid string) {
	var cfg civogo.KubernetesClusterPoolConfig
	if err := json.Unmarshal(q.body, &cfg); err != nil {
		f.fail(q.w, http.StatusBadRequest, "bad_request", err.Error())
		return
	}
	if cfg.Size == "" {
		f.refuse(q, badRequest("parameter_size_missing", "pool %q has no size", cfg.ID))
		return
	}
	if !f.catalogue.poolSize(cfg.Size) {
		f.refuse(q, badRequest("database_size_not_found", "%s is not a Kubernetes node size Civo offers", cfg.Size))
		return
	}
	if _, ok := f.pools[cid+"/"+cfg.ID]; ok && cfg.ID != "" {
		f.fail(q.w, http.StatusConflict, "database_cluster_pool_duplicate", "cluster "+cid+" already has a pool "+cfg.ID)
		return
	}
	p := f.add(cid, cfg, f.opts.BuildPolls)
	writeJSON(q.w, http.StatusOK, civogo.SimpleResponse{ID: p.pool.ID, Result: civogo.ResultSuccess})
}

// update changes only the keys present: a missing "labels" leaves the labels alone,
// "labels": {} clears them; "taints": null is refused, as a list is expected.
func (f poolAPI) update(q *request, cid string, p *fakePool) {
	count, hasCount := -1, q.has("count")
	if hasCount {
		if err := json.Unmarshal(q.fields["count"], &count); err != nil {
			f.fail(q.w, http.StatusBadRequest, "bad_request", err.Error())
			return
		}
	}
	var labels map[string]string
	if q.has("labels") {
		if err := json.Unmarshal(q.fields["labels"], &labels); err != nil {
			f.fail(q.w, http.StatusBadRequest, "bad_request", err.Error())
			return
		}
	}
	var taints []corev1.Taint
	if raw, ok := q.fields["taints"]; ok {
		if string(raw) == "null" {
			f.fail(q.w, http.StatusUnprocessableEntity, "invalid_taints", "taints must be a list")
			return
		}
		if err := json.Unmarshal(raw, &taints); err != nil {
			f.fail(q.w, http.StatusBadRequest, "bad_request", err.Error())
			return
		}
	}
	if hasCount {
		p.setNodes(count, f.opts.BuildPolls)
	}
	if q.has("labels") {
		p.pool.Labels = userLabels(labels)
	}
	if q.has("taints") {
		p.pool.Taints = taints
	}
	writeJSON(q.w, http.StatusOK, f.render(cid, p))
}
