// Package seed fills the loopback clouds (pkg/loopback/fakedo, pkg/loopback/fakecivo) with clusters made
// elsewhere: through the clouds' own HTTP APIs, with the requests and defaults of the tools
// people make clusters with, so that what clusterplane later finds is what it would find in a
// real account. It speaks HTTP only, so it seeds a fake in the test's process and one served by
// tools/fakeclouds alike.
//
// The tools' defaults, from their sources and documentation:
//
//   - doctl kubernetes cluster create: version "latest", one pool named <cluster>-default-pool of
//     three s-1vcpu-2gb nodes, surge upgrades on (--surge-upgrade defaults to true), auto-upgrade
//     off unless --auto-upgrade, maintenance window any day at 00:00. More pools come from
//     `doctl kubernetes cluster node-pool create`, a POST of its own.
//   - The DigitalOcean control panel: the first pool is named <cluster>-default-pool, surge
//     upgrades on, auto-upgrade as ticked.
//   - DigitalOcean itself adds the tags k8s and k8s:<cluster-id> to a cluster and k8s,
//     k8s:<cluster-id>, k8s:worker to its pools (the fake does, as DigitalOcean does).
//   - civo kubernetes create: three g4s.kube.medium nodes, k3s with flannel, the latest version,
//     the region's default network (looked up first), a firewall of its own opening 80, 443 and
//     6443 (--create-firewall, rules "default"), and the marketplace's default applications
//     (Civo installs them when the request names none).
//   - civo kubernetes node-pool create: a POST of the pool to the cluster's pools.
package seed

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/pkg/errors"
)

// Tools that make clusters, as Pool and Cluster name them.
const (
	Doctl   = "doctl"
	Console = "console"
	CivoCLI = "civo"
)

// Taint is a node taint.
type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// Pool is a node pool as the tool is asked for it; zero fields take the tool's defaults.
type Pool struct {
	Name      string
	Size      string
	Count     int
	AutoScale bool
	Min, Max  int
	Labels    map[string]string
	Taints    []Taint
	Tags      []string
}

// Cluster is a cluster as the tool is asked for it; zero fields take the tool's defaults. The
// first pool is the one the cluster is created with; the others are added afterwards, as the
// tools' node-pool commands add them.
type Cluster struct {
	Tool        string
	Name        string
	Region      string
	Version     string
	AutoUpgrade bool
	HA          bool
	Tags        []string
	Pools       []Pool
	// Applications are Civo marketplace applications to install besides the defaults.
	Applications []string
}

// Client POSTs to one loopback cloud.
type Client struct {
	// URL is the API's base URL; Token the account's token.
	URL, Token string
	HTTP       *http.Client
}

// DigitalOcean creates c in the DigitalOcean API at cl and returns its id and its pools' ids.
func (cl Client) DigitalOcean(ctx context.Context, c Cluster) (string, []string, error) {
	tool := c.Tool
	if tool == "" {
		tool = Doctl
	}
	pools := c.Pools
	if len(pools) == 0 {
		pools = []Pool{{}}
	}
	first := doPool(pools[0], c.Name+"-default-pool")
	body := map[string]any{
		"name":          c.Name,
		"region":        or(c.Region, "nyc1"),
		"version":       or(c.Version, "latest"),
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
	if err := cl.post(ctx, "/v2/kubernetes/clusters", "Bearer", body, &created); err != nil {
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
		if err := cl.post(ctx, "/v2/kubernetes/clusters/"+url.PathEscape(id)+"/node_pools", "Bearer", req, &out); err != nil {
			return "", nil, errors.Wrapf(err, "add pool %s to DigitalOcean cluster %s", req["name"], c.Name)
		}
		poolIDs = append(poolIDs, out.Pool.ID)
	}
	return id, poolIDs, nil
}

// doPool is a pool as doctl sends it.
func doPool(p Pool, name string) map[string]any {
	out := map[string]any{
		"name": or(p.Name, name),
		"size": or(p.Size, "s-1vcpu-2gb"),
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

// Civo creates c in the Civo API at cl as `civo kubernetes create` does, then its other pools as
// `civo kubernetes node-pool create` does, and returns the cluster's id and its pools' ids.
func (cl Client) Civo(ctx context.Context, c Cluster) (string, []string, error) {
	region := or(c.Region, "lon1")
	// The CLI looks the region's default network up and names it.
	var networks []struct {
		ID      string `json:"id"`
		Default bool   `json:"default"`
	}
	if err := cl.get(ctx, "/v2/networks?region="+url.QueryEscape(region), "bearer", &networks); err != nil {
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
		pools = []Pool{{}}
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
	if err := cl.post(ctx, "/v2/kubernetes/clusters", "bearer", body, &created); err != nil {
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
		if err := cl.post(ctx, "/v2/kubernetes/clusters/"+url.PathEscape(created.ID)+"/pools", "bearer", req, &out); err != nil {
			return "", nil, errors.Wrapf(err, "add a pool to Civo cluster %s", c.Name)
		}
		poolIDs = append(poolIDs, out.ID)
	}
	return created.ID, poolIDs, nil
}

// civoPool is a pool as civogo sends it; a Civo pool's name is its id.
func civoPool(p Pool) map[string]any {
	out := map[string]any{"size": or(p.Size, "g4s.kube.medium"), "count": p.Count}
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

func (cl Client) post(ctx context.Context, path, scheme string, body, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	return cl.do(ctx, http.MethodPost, path, scheme, data, out)
}

func (cl Client) get(ctx context.Context, path, scheme string, out any) error {
	return cl.do(ctx, http.MethodGet, path, scheme, nil, out)
}

func (cl Client) do(ctx context.Context, method, path, scheme string, body []byte, out any) error {
	hc := cl.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(cl.URL, "/")+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", scheme+" "+cl.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return errors.Errorf("%s %s: no answer", method, path)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if resp.StatusCode/100 != 2 {
		return errors.Errorf("%s %s: HTTP %d %s", method, path, resp.StatusCode, strings.TrimSpace(string(data)))
	}
	return errors.Wrapf(json.Unmarshal(data, out), "%s %s: read the answer", method, path)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
