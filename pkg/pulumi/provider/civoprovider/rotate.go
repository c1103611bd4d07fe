package civoprovider

import (
	"context"
	"encoding/json"
	"net/url"

	"github.com/civo/civogo"
	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/civopool"
	"github.com/pkg/errors"
)

// Pools is a pool client of cfg's token and URL (or the environment's, under the provider's
// rule) in region: what a rotation creates and deletes pools with, as the clusterplane plugin does.
func Pools(cfg *civov1.CivoProviderConfig, region string, opts ...civopool.Option) (*civopool.Client, error) {
	token, url, _, err := client(cfg, region)
	if err != nil {
		return nil, err
	}
	return civopool.New(token, url, region, opts...)
}

// Kubeconfig reads cluster clusterID's kubeconfig from Civo's API (GET /v2/kubernetes/clusters/ID,
// its kubeconfig field, which the Civo provider's cluster resource exports as kubeconfig too).
// It is a secret: the caller holds it in memory and never writes or shows it.
func Kubeconfig(ctx context.Context, pools *civopool.Client, clusterID string) ([]byte, error) {
	data, err := pools.Read(ctx, "/v2/kubernetes/clusters/"+url.PathEscape(clusterID))
	if err != nil {
		return nil, errors.Wrapf(err, "read Civo cluster %s", clusterID)
	}
	var cluster civogo.KubernetesCluster
	if err := json.Unmarshal(data, &cluster); err != nil {
		// The body holds the kubeconfig: the decoding error is given without it.
		return nil, errors.Errorf("read Civo cluster %s: its answer is not a cluster", clusterID)
	}
	if cluster.KubeConfig == "" {
		return nil, errors.Errorf("Civo cluster %s reports no kubeconfig (is it still building?)", clusterID)
	}
	return []byte(cluster.KubeConfig), nil
}
