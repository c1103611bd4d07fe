package digitalocean

import (
	"context"
	"net/http"
	"net/url"

	"github.com/pkg/errors"
)

// The writes on a cluster's node pools, DigitalOcean's one pool client: a rotation's (rotation.go)
// and clusterplane's Karpenter provider's (karpenter/), which owns pools it creates, grows them
// one node at a time and removes exactly the node Karpenter gives up. The paths and bodies are
// DigitalOcean's API reference's (Kubernetes: "Add a Node Pool to a Kubernetes Cluster", "Update a
// Node Pool", "Delete a Node in a Kubernetes Cluster", "Delete a Node Pool"), as godo v1.236.0
// sends them (kubernetes.go: CreateNodePool, UpdateNodePool, DeleteNode, DeleteNodePool).

// Node is one node of a pool: its id within DOKS, its name (the Kubernetes node's) and the
// Droplet behind it, whose id is the node's providerID (digitalocean://<droplet id>).
type Node struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	DropletID string     `json:"droplet_id"`
	Status    NodeStatus `json:"status"`
}

// NodeStatus is a node's state: provisioning, running, draining, deleting.
type NodeStatus struct {
	State string `json:"state"`
}

// PoolRequest is a new node pool: DigitalOcean chooses its id; its name must be unique in the
// cluster. AutoScale, MinNodes and MaxNodes are sent only for an autoscaled pool.
type PoolRequest struct {
	Name      string            `json:"name"`
	Size      string            `json:"size"`
	Count     int32             `json:"count"`
	AutoScale bool              `json:"auto_scale,omitempty"`
	MinNodes  int32             `json:"min_nodes,omitempty"`
	MaxNodes  int32             `json:"max_nodes,omitempty"`
	Tags      []string          `json:"tags,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
	// Taints is sent as a list even when empty: the API reads a missing list as "none" too, and
	// one form is simpler to test.
	Taints []Taint `json:"taints"`
}

// CreatePool adds a pool to the cluster and returns it as DigitalOcean answers (its nodes
// provisioning). A create is sent once, whatever the client's retry rule: DigitalOcean may have
// made the pool, and a caller that finds its pools by a tag finds it on its next read.
func (c *Client) CreatePool(ctx context.Context, clusterID string, req PoolRequest) (NodePool, error) {
	if req.Taints == nil {
		req.Taints = []Taint{}
	}
	var answer struct {
		Pool NodePool `json:"node_pool"`
	}
	if err := c.once.Do(ctx, http.MethodPost, clusterPath(clusterID)+"/node_pools", req, &answer); err != nil {
		return NodePool{}, errors.Wrapf(err, "create a %s node pool in DigitalOcean cluster %s", req.Size, clusterID)
	}
	return answer.Pool, nil
}

// Pool is one pool of the cluster with its nodes; a pool that does not exist is an error that
// cloudapi.IsNotFound recognises.
func (c *Client) Pool(ctx context.Context, clusterID, poolID string) (NodePool, error) {
	var answer struct {
		Pool NodePool `json:"node_pool"`
	}
	if err := c.api.Do(ctx, http.MethodGet, poolPath(clusterID, poolID), nil, &answer); err != nil {
		return NodePool{}, errors.Wrapf(err, "read node pool %s of DigitalOcean cluster %s", poolID, clusterID)
	}
	return answer.Pool, nil
}

// ResizePool sets the pool's node count. The update sends the pool's name with the count:
// terraform-provider-digitalocean's update always does, and the API reference lists name and count
// as the update's required fields.
func (c *Client) ResizePool(ctx context.Context, clusterID, poolID, name string, count int32) (NodePool, error) {
	p, err := c.update(ctx, clusterID, poolID, PoolUpdate{Name: name, Count: count})
	if err != nil {
		return NodePool{}, errors.Wrapf(err, "resize node pool %s of DigitalOcean cluster %s to %d", poolID, clusterID, count)
	}
	return p, nil
}

// PoolUpdate is an update of a pool: its name and count, which the API requires, and its tags
// when they change (none sent leaves them as they are).
type PoolUpdate struct {
	Name  string   `json:"name"`
	Count int32    `json:"count"`
	Tags  []string `json:"tags,omitempty"`
}

// UpdatePool updates the pool in place.
func (c *Client) UpdatePool(ctx context.Context, clusterID, poolID string, u PoolUpdate) (NodePool, error) {
	p, err := c.update(ctx, clusterID, poolID, u)
	if err != nil {
		return NodePool{}, errors.Wrapf(err, "update node pool %s of DigitalOcean cluster %s", poolID, clusterID)
	}
	return p, nil
}

func (c *Client) update(ctx context.Context, clusterID, poolID string, u PoolUpdate) (NodePool, error) {
	var answer struct {
		Pool NodePool `json:"node_pool"`
	}
	err := c.api.Do(ctx, http.MethodPut, poolPath(clusterID, poolID), u, &answer)
	return answer.Pool, err
}

// TagPool sets the pool's tags and nothing else: the body holds the tags alone, so the pool's
// name, count, labels and taints stay as they are.
func (c *Client) TagPool(ctx context.Context, clusterID, poolID string, tags []string) error {
	if err := c.api.Do(ctx, http.MethodPut, poolPath(clusterID, poolID), map[string]any{"tags": tags}, nil); err != nil {
		return errors.Wrapf(err, "tag node pool %s of DigitalOcean cluster %s", poolID, clusterID)
	}
	return nil
}

// DeleteNode deletes one node of a pool without a replacement (replace=0), which lowers the pool's
// count by one: the cluster autoscaler's DigitalOcean provider removes nodes the same way and only
// lowers its own copy of the count afterwards (kubernetes/autoscaler,
// cluster-autoscaler/cloudprovider/digitalocean/digitalocean_node_group.go, DeleteNodes). A node
// already gone is an error that cloudapi.IsNotFound recognises.
func (c *Client) DeleteNode(ctx context.Context, clusterID, poolID, nodeID string) error {
	path := poolPath(clusterID, poolID) + "/nodes/" + url.PathEscape(nodeID) + "?replace=0"
	if err := c.api.Do(ctx, http.MethodDelete, path, nil, nil); err != nil {
		return errors.Wrapf(err, "delete node %s of node pool %s of DigitalOcean cluster %s", nodeID, poolID, clusterID)
	}
	return nil
}

// DeletePool deletes a pool and its nodes. A pool already gone is an error that
// cloudapi.IsNotFound recognises.
func (c *Client) DeletePool(ctx context.Context, clusterID, poolID string) error {
	if err := c.api.Do(ctx, http.MethodDelete, poolPath(clusterID, poolID), nil, nil); err != nil {
		return errors.Wrapf(err, "delete node pool %s of DigitalOcean cluster %s", poolID, clusterID)
	}
	return nil
}

// SizeDetails are every Droplet size DigitalOcean lists (GET /v2/sizes), with its shape, price
// and regions: LivePrices reads the prices, Karpenter the shapes.
func (c *Client) SizeDetails(ctx context.Context) ([]SizeDetail, error) {
	var all []SizeDetail
	err := pages(ctx, c, "/v2/sizes", "sizes", func(page []SizeDetail) bool {
		all = append(all, page...)
		return true
	})
	if err != nil {
		return nil, errors.Wrap(err, "list DigitalOcean's sizes")
	}
	return all, nil
}

// SizeDetail is a Droplet size: its CPUs, memory in MiB, GPUs, price and the regions it is
// offered in.
type SizeDetail struct {
	Slug         string   `json:"slug"`
	Memory       int64    `json:"memory"`
	Vcpus        int64    `json:"vcpus"`
	Disk         int64    `json:"disk"`
	PriceMonthly float64  `json:"price_monthly"`
	PriceHourly  float64  `json:"price_hourly"`
	Regions      []string `json:"regions"`
	Available    bool     `json:"available"`
	Description  string   `json:"description"`
	GPUInfo      *struct {
		Count int64  `json:"count"`
		Model string `json:"model"`
	} `json:"gpu_info"`
}

func poolPath(clusterID, poolID string) string {
	return clusterPath(clusterID) + "/node_pools/" + url.PathEscape(poolID)
}
