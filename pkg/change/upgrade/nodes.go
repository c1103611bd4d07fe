package upgrade

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/kubeversion"
)

// NodesReady counts the cluster's nodes as its own Kubernetes API reports them (GET
// /api/v1/nodes): a node is ready when its Ready condition is True and, where it reports its
// kubelet's version, that version is of version's minor release. The cloud's node states say a
// machine runs; this says its kubelet has joined, at the version the step set.
func NodesReady(ctx context.Context, list Lister, version string) (nodes, ready int, err error) {
	items, served, err := list(ctx, "/api/v1/nodes")
	if err != nil {
		return 0, 0, err
	}
	if !served {
		return 0, 0, errors.New("the cluster's API does not serve nodes")
	}
	for _, raw := range items {
		var n struct {
			Status struct {
				Conditions []struct {
					Type, Status string
				} `json:"conditions"`
				NodeInfo struct {
					KubeletVersion string `json:"kubeletVersion"`
				} `json:"nodeInfo"`
			} `json:"status"`
		}
		if err := json.Unmarshal(raw, &n); err != nil {
			return 0, 0, errors.Wrap(err, "read a node of the cluster's API")
		}
		nodes++
		kubelet := strings.TrimPrefix(n.Status.NodeInfo.KubeletVersion, "v")
		if kubelet != "" && !kubeversion.SameMinor(kubelet, version) {
			continue
		}
		for _, c := range n.Status.Conditions {
			if c.Type == "Ready" && c.Status == "True" {
				ready++
			}
		}
	}
	return nodes, ready, nil
}
