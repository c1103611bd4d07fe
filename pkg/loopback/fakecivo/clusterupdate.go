package fakecivo

import (
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/civo/civogo"
)

func (f clusterAPI) update(q *request, fc *fakeCluster) {
	var cfg civogo.KubernetesClusterConfig
	if err := json.Unmarshal(q.body, &cfg); err != nil {
		f.fail(q.w, http.StatusBadRequest, "bad_request", err.Error())
		return
	}
	c := &fc.c
	// What is fixed at creation is refused rather than ignored, so a client that thinks it
	// changed it learns that it did not.
	for _, fixed := range []struct{ key, now, asked string }{
		{"network_id", c.NetworkID, cfg.NetworkID},
		{"cluster_type", c.ClusterType, cfg.ClusterType},
		{"cni_plugin", c.CNIPlugin, cfg.CNIPlugin},
	} {
		if q.has(fixed.key) && fixed.asked != fixed.now {
			f.refuse(q, badRequest("database_kubernetes_cluster_invalid", "%s cannot change from %q to %q", fixed.key, fixed.now, fixed.asked))
			return
		}
	}
	version, e := f.newVersion(q, c, cfg)
	if e != nil {
		f.refuse(q, e)
		return
	}
	name, e := f.newName(q, fc, cfg)
	if e != nil {
		f.refuse(q, e)
		return
	}
	firewallID := c.FirewallID
	if q.has("firewall_id") || q.has("instance_firewall") {
		asked := cmp.Or(cfg.FirewallID, cfg.InstanceFirewall)
		fw, ok := f.networking.firewallIn(asked, q.region)
		if !ok {
			f.refuse(q, badRequest("database_firewall_not_found", "no firewall %s in %s", asked, q.region))
			return
		}
		if fw.fw.NetworkID != c.NetworkID {
			f.refuse(q, badRequest("database_firewall_mismatch", "firewall %s is in network %s, not %s", asked, fw.fw.NetworkID, c.NetworkID))
			return
		}
		firewallID = asked
	}
	apps := c.InstalledApplications
	if q.has("applications") {
		if apps, e = f.catalogue.installApps(apps, cfg.Applications, false); e != nil {
			f.refuse(q, e)
			return
		}
	}
	apply, e := f.planPools(q, fc, cfg)
	if e != nil {
		f.refuse(q, e)
		return
	}

	// Everything is checked: change the cluster.
	c.Name, c.FirewallID, c.InstalledApplications = name, firewallID, apps
	if version != c.Version {
		f.startUpgrade(fc, version)
	}
	if q.has("tags") {
		c.Tags = strings.Fields(cfg.Tags)
	}
	apply()
	writeJSON(q.w, http.StatusOK, f.render(fc))
}

// newVersion is the version a cluster PUT leaves the cluster at: an upgrade to a version Civo
// offers, never a downgrade.
func (f clusterAPI) newVersion(q *request, c *civogo.KubernetesCluster, cfg civogo.KubernetesClusterConfig) (string, *apiError) {
	if !q.has("kubernetes_version") || cfg.KubernetesVersion == c.Version {
		return c.Version, nil
	}
	if _, ok := f.catalogue.version(cfg.KubernetesVersion, c.ClusterType); !ok {
		return "", badRequest("database_kubernetes_cluster_invalid_version", "%s is not a %s version Civo offers", cfg.KubernetesVersion, c.ClusterType)
	}
	if compareVersions(cfg.KubernetesVersion, c.Version) < 0 {
		return "", badRequest("database_kubernetes_cluster_invalid_version",
			"a cluster can only be upgraded: %s is below its version %s", cfg.KubernetesVersion, c.Version)
	}
	return cfg.KubernetesVersion, nil
}

// newName is the name a cluster PUT leaves the cluster with: a valid name no other cluster of
// its region has.
func (f clusterAPI) newName(q *request, fc *fakeCluster, cfg civogo.KubernetesClusterConfig) (string, *apiError) {
	if !q.has("name") || cfg.Name == fc.c.Name {
		return fc.c.Name, nil
	}
	if !clusterNameRE.MatchString(cfg.Name) {
		return "", badRequest("kubernetes_cluster_invalid_name", "%q is not a valid cluster name", cfg.Name)
	}
	for _, other := range f.clusters {
		if other != fc && other.c.Name == cfg.Name && inRegion(other.region, fc.region) {
			return "", &apiError{http.StatusConflict, "database_duplicate_cluster_name_not_allowed", "a cluster named " + cfg.Name + " already exists in " + q.region}
		}
	}
	return cfg.Name, nil
}

// planPools checks what a cluster PUT asks of the pools and returns how to do it. "pools" is the
// whole list; without it, num_target_nodes and target_nodes_size speak for the first pool.
func (f clusterAPI) planPools(q *request, fc *fakeCluster, cfg civogo.KubernetesClusterConfig) (func(), *apiError) {
	cid := fc.c.ID
	current := f.poolAPI.of(cid)
	if !q.has("pools") || string(q.fields["pools"]) == "null" {
		return f.planFirstPool(q, current, cfg)
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(q.fields["pools"], &raws); err != nil {
		return nil, badRequest("bad_request", "pools: %v", err)
	}
	if len(raws) == 0 {
		return nil, badRequest("database_kubernetes_cluster_no_pools", "a cluster needs at least one pool")
	}
	type step struct {
		cfg    civogo.KubernetesClusterPoolConfig
		fields map[string]json.RawMessage
		pool   *fakePool // nil for a new pool
	}
	var steps []step
	listed := map[string]bool{}
	for _, raw := range raws {
		var s step
		if err := json.Unmarshal(raw, &s.cfg); err != nil {
			return nil, badRequest("bad_request", "pools: %v", err)
		}
		_ = json.Unmarshal(raw, &s.fields)
		if s.cfg.ID != "" {
			if listed[s.cfg.ID] {
				return nil, badRequest("database_kubernetes_cluster_invalid", "pool id %q is given twice", s.cfg.ID)
			}
			listed[s.cfg.ID] = true
			s.pool = f.pools[cid+"/"+s.cfg.ID]
		}
		_, hasSize := s.fields["size"]
		_, hasCount := s.fields["count"]
		switch {
		case s.pool == nil:
			if e := f.poolAPI.checkNew(s.cfg); e != nil {
				return nil, e
			}
		case hasSize && s.cfg.Size != s.pool.pool.Size:
			return nil, badRequest("database_kubernetes_cluster_invalid", "pool %s's size cannot change from %s to %s", s.cfg.ID, s.pool.pool.Size, s.cfg.Size)
		case hasCount && s.cfg.Count < 1:
			return nil, badRequest("database_kubernetes_cluster_invalid", "pool %s needs at least one node", s.cfg.ID)
		}
		steps = append(steps, s)
	}
	return func() {
		for _, p := range current {
			if !listed[p.pool.ID] {
				delete(f.pools, cid+"/"+p.pool.ID)
			}
		}
		for _, s := range steps {
			if s.pool == nil {
				f.poolAPI.add(cid, s.cfg, f.opts.BuildPolls)
				continue
			}
			if _, ok := s.fields["count"]; ok && s.cfg.Count != s.pool.pool.Count {
				s.pool.setNodes(s.cfg.Count, f.opts.BuildPolls)
			}
			if _, ok := s.fields["labels"]; ok {
				s.pool.pool.Labels = userLabels(s.cfg.Labels)
			}
			if raw, ok := s.fields["taints"]; ok && string(raw) != "null" {
				s.pool.pool.Taints = slices.Clone(s.cfg.Taints)
			}
		}
	}, nil
}

// planFirstPool is planPools for a PUT without "pools": num_target_nodes and target_nodes_size
// speak for the first pool.
func (f clusterAPI) planFirstPool(q *request, current []*fakePool, cfg civogo.KubernetesClusterConfig) (func(), *apiError) {
	if len(current) == 0 {
		return func() {}, nil
	}
	first := current[0]
	if q.has("target_nodes_size") && cfg.TargetNodesSize != first.pool.Size {
		return nil, badRequest("database_kubernetes_cluster_invalid", "pool %s's size cannot change from %s to %s", first.pool.ID, first.pool.Size, cfg.TargetNodesSize)
	}
	if q.has("num_target_nodes") && cfg.NumTargetNodes != first.pool.Count {
		if cfg.NumTargetNodes < 1 {
			return nil, badRequest("database_kubernetes_cluster_invalid", "pool %s needs at least one node", first.pool.ID)
		}
		return func() { first.setNodes(cfg.NumTargetNodes, f.opts.BuildPolls) }, nil
	}
	return func() {}, nil
}

func (f clusterAPI) delete(q *request, fc *fakeCluster) {
	for _, p := range f.poolAPI.of(fc.c.ID) {
		delete(f.pools, fc.c.ID+"/"+p.pool.ID)
	}
	if f.opts.DeletePolls > 0 {
		fc.deleted, fc.deleting, fc.overridden = true, f.opts.DeletePolls, false
	} else {
		delete(f.clusters, fc.c.ID)
	}
	writeJSON(q.w, http.StatusOK, civogo.SimpleResponse{ID: fc.c.ID, Result: civogo.ResultSuccess})
}
