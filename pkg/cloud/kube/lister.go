package kube

import (
	"context"
	"encoding/json"
)

// Lister lists a cluster's collections through kubeconfig, held in memory only (an upgrade
// plan's scan of removed APIs, pkg/change/upgrade's Lister): every object of the collection at
// path, and served false, without an error, when the server answers 404 (it does not serve that
// API version). Neither it nor its lists quote the kubeconfig: it holds credentials.
func Lister(kubeconfig []byte) (func(ctx context.Context, path string) ([]json.RawMessage, bool, error), error) {
	c, err := New(kubeconfig)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, path string) ([]json.RawMessage, bool, error) {
		items, err := c.List(ctx, path, nil)
		if IsNotFound(err) {
			return nil, false, nil
		}
		if err != nil {
			return nil, true, err
		}
		return items, true, nil
	}, nil
}
