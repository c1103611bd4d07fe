package fakecivo

import (
	"context"
	"net/url"
	"strings"

	"github.com/clusterplane/clusterplane/internal/seed"
	"github.com/pkg/errors"
)

// Civo's CLI's defaults, from its source and documentation:
//
//   - civo kubernetes create: three g4s.kube.medium nodes, k3s with flannel, the latest version,
//     the region's default network (looked up first), a firewall of its own opening 80, 443 and
//     6443 (--create-firewall, rules "default"), and the marketplace's default applications
//     (Civo installs them when the request names none).
//   - civo kubernetes node-pool create: a POST of the pool to the cluster's pools.

// Seed creates c in the Civo API at cl (this fake, or Civo's own) as `civo kubernetes create` does, then its other pools as
// `civo kubernetes node-pool create` does, and returns the cluster's id and its pools' ids.
func Seed(ctx context.Context, cl seed.Client, c seed.Cluster) (string, []string, error) {
	region := seed.Or(c.Region, "lon1")
	// The CLI looks the region's default network up and names it.
	var networks []struct {
		ID      string `json:"id"`
		Default bool   `json:"default"`
	}
	if err := cl.Get(ctx, "/v2/networks?region="+url.QueryEscape(region), "bearer", &networks); err != nil {
		return "", nil, errors.Wrapf(err, "find the default network of Civo region %s", region)
	}
	network := ""
	for _, n := range networks {
		if n.Default {
			network = n.ID
		}
	}
	pools := c.Pools
	if len(pools) == 0 {
		pools = []seed.Pool{{}}
	}
	first := civoPool(pools[0])
	body := map[string]any{
		"name":              c.Name,
		"region":            region,
		"num_target_nodes":  first["count"],
		"target_nodes_size": first["size"],
		"network_id":        network,
		"cluster_type":      "k3s",
		"cni_plugin":        "flannel",
		"firewall_rule":     "default",
		"pools":             []any{first},
		"applications":      strings.Join(c.Applications, ","),
	}
	if c.Version != "" {
		body["kubernetes_version"] = c.Version
	}
	if len(c.Tags) > 0 {
		body["tags"] = strings.Join(c.Tags, " ")
	}
	var created struct {
		ID    string `json:"id"`
		Pools []struct {
			ID string `json:"id"`
		} `json:"pools"`
	}
	if err := cl.Post(ctx, "/v2/kubernetes/clusters", "bearer", body, &created); err != nil {
		return "", nil, errors.Wrapf(err, "create Civo cluster %s as the civo CLI does", c.Name)
	}
	var poolIDs []string
	for _, p := range created.Pools {
		poolIDs = append(poolIDs, p.ID)
	}
	for _, p := range pools[1:] {
		req := civoPool(p)
		req["region"] = region
		var out struct {
			ID string `json:"id"`
		}
		if err := cl.Post(ctx, "/v2/kubernetes/clusters/"+url.PathEscape(created.ID)+"/pools", "bearer", req, &out); err != nil {
			return "", nil, errors.Wrapf(err, "add a pool to Civo cluster %s", c.Name)
		}
		poolIDs = append(poolIDs, out.ID)
	}
	return created.ID, poolIDs, nil
}

// civoPool is a pool as civogo sends it; a Civo pool's name is its id.
func civoPool(p seed.Pool) map[string]any {
	out := map[string]any{"size": seed.Or(p.Size, "g4s.kube.medium"), "count": p.Count}
	if p.Count == 0 {
		out["count"] = 3
	}
	if p.Name != "" {
		out["id"] = p.Name
	}
	if len(p.Labels) > 0 {
		out["labels"] = p.Labels
	}
	if len(p.Taints) > 0 {
		out["taints"] = p.Taints
	}
	return out
}
