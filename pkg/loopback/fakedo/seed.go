package fakedo

import (
	"context"
	"fmt"
	"net/url"

	"github.com/clusterplane/clusterplane/internal/seed"
	"github.com/pkg/errors"
)

// DigitalOcean's tools' defaults, from their sources and documentation:
//
//   - doctl kubernetes cluster create: version "latest", one pool named <cluster>-default-pool of
//     three s-1vcpu-2gb nodes, surge upgrades on (--surge-upgrade defaults to true), auto-upgrade
//     off unless --auto-upgrade, maintenance window any day at 00:00. More pools come from
//     `doctl kubernetes cluster node-pool create`, a POST of its own.
//   - The DigitalOcean control panel (seed.Console): the first pool is named
//     <cluster>-default-pool, surge upgrades on, auto-upgrade as ticked.
//   - DigitalOcean itself adds the tags k8s and k8s:<cluster-id> to a cluster and k8s,
//     k8s:<cluster-id>, k8s:worker to its pools (the fake does, as DigitalOcean does).

// Doctl is the Tool of a cluster made with DigitalOcean's command-line tool, the default.
const Doctl = "doctl"

// Seed creates c in the DigitalOcean API at cl (this fake, or DigitalOcean's own) as c.Tool does
// (doctl when it names none), then its other pools as `doctl kubernetes cluster node-pool create`
// does, and returns the cluster's id and its pools' ids.
func Seed(ctx context.Context, cl seed.Client, c seed.Cluster) (string, []string, error) {
	tool := c.Tool
	if tool == "" {
		tool = Doctl
	}
	pools := c.Pools
	if len(pools) == 0 {
		pools = []seed.Pool{{}}
	}
	first := doPool(pools[0], c.Name+"-default-pool")
	body := map[string]any{
		"name":          c.Name,
		"region":        seed.Or(c.Region, "nyc1"),
		"version":       seed.Or(c.Version, "latest"),
		"node_pools":    []any{first},
		"surge_upgrade": true,
		"auto_upgrade":  c.AutoUpgrade,
		"ha":            c.HA,
		"maintenance_policy": map[string]string{
			"day": "any", "start_time": "00:00",
		},
	}
	if len(c.Tags) > 0 {
		body["tags"] = c.Tags
	}
	var created struct {
		Cluster struct {
			ID        string `json:"id"`
			NodePools []struct {
				ID string `json:"id"`
			} `json:"node_pools"`
		} `json:"kubernetes_cluster"`
	}
	if err := cl.Post(ctx, "/v2/kubernetes/clusters", "Bearer", body, &created); err != nil {
		return "", nil, errors.Wrapf(err, "create DigitalOcean cluster %s as %s does", c.Name, tool)
	}
	id := created.Cluster.ID
	var poolIDs []string
	for _, p := range created.Cluster.NodePools {
		poolIDs = append(poolIDs, p.ID)
	}
	for i, p := range pools[1:] {
		var out struct {
			Pool struct {
				ID string `json:"id"`
			} `json:"node_pool"`
		}
		req := doPool(p, fmt.Sprintf("%s-pool-%d", c.Name, i+2))
		if err := cl.Post(ctx, "/v2/kubernetes/clusters/"+url.PathEscape(id)+"/node_pools", "Bearer", req, &out); err != nil {
			return "", nil, errors.Wrapf(err, "add pool %s to DigitalOcean cluster %s", req["name"], c.Name)
		}
		poolIDs = append(poolIDs, out.Pool.ID)
	}
	return id, poolIDs, nil
}

// doPool is a pool as doctl sends it.
func doPool(p seed.Pool, name string) map[string]any {
	out := map[string]any{
		"name": seed.Or(p.Name, name),
		"size": seed.Or(p.Size, "s-1vcpu-2gb"),
	}
	count := p.Count
	if count == 0 && !p.AutoScale {
		count = 3
	}
	if count > 0 {
		out["count"] = count
	}
	if p.AutoScale {
		out["auto_scale"], out["min_nodes"], out["max_nodes"] = true, p.Min, p.Max
	}
	if len(p.Labels) > 0 {
		out["labels"] = p.Labels
	}
	if len(p.Taints) > 0 {
		out["taints"] = p.Taints
	}
	if len(p.Tags) > 0 {
		out["tags"] = p.Tags
	}
	return out
}
