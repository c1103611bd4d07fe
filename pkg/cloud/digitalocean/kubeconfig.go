package digitalocean

import (
	"bytes"
	"context"
	"net/url"

	"github.com/clusterplane/clusterplane/pkg/cloud/kubeconfig"
	"github.com/pkg/errors"
)

// ReadKubeconfig is the kubeconfig of DigitalOcean cluster id, by pkg/cloud/kubeconfig's rules:
// the YAML body of GET /v2/kubernetes/clusters/{id}/kubeconfig.
func ReadKubeconfig(ctx context.Context, get kubeconfig.Get, id string) ([]byte, error) {
	data, err := get(ctx, "/v2/kubernetes/clusters/"+url.PathEscape(id)+"/kubeconfig")
	if err != nil {
		return nil, errors.Wrapf(err, "read the kubeconfig of DigitalOcean cluster %s", id)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.Errorf("DigitalOcean cluster %s reports no kubeconfig", id)
	}
	return data, nil
}
