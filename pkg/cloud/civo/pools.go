package civo

import (
	"context"
	"net/http"
	"net/url"

	"github.com/pkg/errors"
)

// The writes on a cluster's pools that clusterplane's Karpenter provider (karpenter/) makes: it
// owns pools it creates, grows them one node at a time and removes exactly the instance Karpenter
// gives up. Paths and bodies are civogo v0.3.89's (pool.go: CreateKubernetesClusterPool,
// UpdateKubernetesClusterPool, DeleteKubernetesClusterPoolInstance, DeleteKubernetesClusterPool):
// the region goes in a POST's or PUT's body and in a GET's or DELETE's query, as civogo's
// sendRequest and KubernetesClusterPoolConfig put it.

// Instance is one node of a pool. Its ID is the instance's, the node's providerID is
// civo://<ID> (Civo's cloud controller manager's), and Hostname is the Kubernetes node's name.
type Instance struct {
	ID       string `json:"id"`
	Hostname string `json:"hostname"`
	Size     string `json:"size"`
	Status   string `json:"status"`
}

// PoolRequest is a new pool: its ID is the caller's choice and its name in the cluster.
type PoolRequest struct {
	ID     string            `json:"id"`
	Size   string            `json:"size"`
	Count  int32             `json:"count"`
	Labels map[string]string `json:"labels,omitempty"`
	// Taints is sent as a list even when empty, as pkg/cloud/civopool does: Civo reads "taints":
	// null as no list at all.
	Taints []Taint `json:"taints"`
}

// CreatePool adds a pool to region's cluster. A create is not asked again after a failure: Civo
// may have made the pool, and a caller that finds its pools by a label finds it on its next read.
func (c *Client) CreatePool(ctx context.Context, region, clusterID string, req PoolRequest) error {
	body := struct {
		PoolRequest
		Region string `json:"region,omitempty"`
	}{req, region}
	if body.Taints == nil {
		body.Taints = []Taint{}
	}
	if err := c.api.Do(ctx, http.MethodPost, clusterPath(clusterID)+"/pools", body, nil); err != nil {
		return errors.Wrapf(err, "create a %s pool in Civo cluster %s", req.Size, clusterID)
	}
	return nil
}

// Pools are the pools of region's cluster with their instances (Civo answers them in one list,
// unpaged). A cluster that does not exist is an error that cloudapi.IsNotFound recognises.
func (c *Client) Pools(ctx context.Context, region, clusterID string) ([]Pool, error) {
	var pools []Pool
	if err := c.api.Do(ctx, http.MethodGet, clusterPath(clusterID)+"/pools"+query(region), nil, &pools); err != nil {
		return nil, errors.Wrapf(err, "list the pools of Civo cluster %s", clusterID)
	}
	return pools, nil
}

// ResizePool sets the pool's node count; nothing else of the pool is sent, so nothing else changes.
func (c *Client) ResizePool(ctx context.Context, region, clusterID, poolID string, count int32) (Pool, error) {
	body := map[string]any{"count": count}
	if region != "" {
		body["region"] = region
	}
	var p Pool
	if err := c.api.Do(ctx, http.MethodPut, civoPoolPath(clusterID, poolID), body, &p); err != nil {
		return Pool{}, errors.Wrapf(err, "resize pool %s of Civo cluster %s to %d", poolID, clusterID, count)
	}
	return p, nil
}

// DeleteInstance deletes one instance of a pool, which lowers the pool's count by one: Civo's
// cluster autoscaler removes nodes by this call alone (kubernetes/autoscaler,
// cluster-autoscaler/cloudprovider/civo/civo_node_group.go, DeleteNodes). An instance already gone
// is an error that cloudapi.IsNotFound recognises.
func (c *Client) DeleteInstance(ctx context.Context, region, clusterID, poolID, instanceID string) error {
	path := civoPoolPath(clusterID, poolID) + "/instances/" + url.PathEscape(instanceID) + query(region)
	if err := c.api.Do(ctx, http.MethodDelete, path, nil, nil); err != nil {
		return errors.Wrapf(err, "delete instance %s of pool %s of Civo cluster %s", instanceID, poolID, clusterID)
	}
	return nil
}

// DeletePool deletes a pool and its instances. A pool already gone is an error that
// cloudapi.IsNotFound recognises.
func (c *Client) DeletePool(ctx context.Context, region, clusterID, poolID string) error {
	if err := c.api.Do(ctx, http.MethodDelete, civoPoolPath(clusterID, poolID)+query(region), nil, nil); err != nil {
		return errors.Wrapf(err, "delete pool %s of Civo cluster %s", poolID, clusterID)
	}
	return nil
}

// Size is an instance size Civo offers: Type "kubernetes" sizes may back a pool. Memory is in MiB.
type Size struct {
	Name       string `json:"name"`
	Type       string `json:"type"`
	CPUCores   int64  `json:"cpu_cores"`
	RAMMB      int64  `json:"ram_mb"`
	DiskGB     int64  `json:"disk_gb"`
	GPUCount   int64  `json:"gpu_count"`
	GPUType    string `json:"gpu_type"`
	Selectable bool   `json:"selectable"`
}

// Sizes are every instance size Civo offers (one list, the same in every region: civogo's
// ListInstanceSizes reads it without a region).
func (c *Client) Sizes(ctx context.Context) ([]Size, error) {
	var sizes []Size
	if err := c.api.Do(ctx, http.MethodGet, "/v2/sizes", nil, &sizes); err != nil {
		return nil, errors.Wrap(err, "list Civo's sizes")
	}
	return sizes, nil
}

func civoPoolPath(clusterID, poolID string) string {
	return clusterPath(clusterID) + "/pools/" + url.PathEscape(poolID)
}
