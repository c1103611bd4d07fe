package civo

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/cloud/kubeconfig"
	"github.com/pkg/errors"
)

// ReadKubeconfig is the kubeconfig of Civo cluster id, by pkg/cloud/kubeconfig's rules: the
// kubeconfig field of GET /v2/kubernetes/clusters/{id}, which the Civo provider's cluster
// resource exports as its kubeconfig too. get adds the client's region itself, as the pool
// client (pkg/cloud/civo/pools) does.
func ReadKubeconfig(ctx context.Context, get kubeconfig.Get, id string) ([]byte, error) {
	data, err := get(ctx, "/v2/kubernetes/clusters/"+url.PathEscape(id))
	if err != nil {
		return nil, errors.Wrapf(err, "read Civo cluster %s", id)
	}
	var cluster struct {
		KubeConfig string `json:"kubeconfig"`
	}
	if err := json.Unmarshal(data, &cluster); err != nil {
		// The decoding error may quote the body, which holds the kubeconfig: it is left out.
		return nil, errors.Errorf("read Civo cluster %s: its answer is not a cluster", id)
	}
	if strings.TrimSpace(cluster.KubeConfig) == "" {
		// Civo hands a cluster's kubeconfig once the cluster is up, an empty field before.
		return nil, errors.Errorf("Civo cluster %s reports no kubeconfig (is it still building?)", id)
	}
	return []byte(cluster.KubeConfig), nil
}
