package upgrade

import (
	"context"
	"encoding/json"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/cloud/kube"
)

// kubeClient reads a cluster's API through its kubeconfig, held in memory only.
type kubeClient struct {
	c *kube.Client
}

// newKubeClient is a client of the kubeconfig's current context. Its errors never quote the
// kubeconfig: it holds credentials.
func newKubeClient(data []byte) (*kubeClient, error) {
	c, err := kube.New(data)
	if err != nil {
		return nil, err
	}
	return &kubeClient{c: c}, nil
}

// errNotServed is a 404 for a list: the server does not serve that API version.
var errNotServed = errors.New("not served")

// list reads every object of a collection, page by page; errNotServed when the server does not
// serve it.
func (c *kubeClient) list(ctx context.Context, path string) ([]map[string]any, error) {
	raw, err := c.c.List(ctx, path, nil)
	if kube.IsNotFound(err) {
		return nil, errNotServed
	}
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(raw))
	for _, r := range raw {
		var item map[string]any
		if err := json.Unmarshal(r, &item); err != nil {
			return nil, errors.Wrapf(err, "read %s", path)
		}
		out = append(out, item)
	}
	return out, nil
}
