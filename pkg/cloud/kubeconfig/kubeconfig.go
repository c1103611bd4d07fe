// Package kubeconfig reads a cluster's kubeconfig from its cloud's API, once per cloud: the path,
// the refusal of an answer without one, and errors that name the cluster but never quote the
// answer, which holds the kubeconfig.
//
// A pool rotation (pkg/change/rotation) and upgrade plan (pkg/change/upgrade) read it through
// different HTTP clients (Civo's pool client, godo, cloudapi); each hands its own GET as a Get, so the
// rules live here and the clients stay as they are.
//
// The kubeconfig is a secret: it is returned in memory, never written, never in an error.
package kubeconfig

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/pkg/errors"
)

// Get sends GET path (without a query) to a cloud's API with the caller's client and token, and
// returns the body of a 2xx answer; any other answer is an error that does not quote a 2xx body.
// A Civo Get adds the client's region itself, as Civo's pool client (pkg/cloud/civo/pools) does.
type Get func(ctx context.Context, path string) ([]byte, error)

// Civo is the kubeconfig of Civo cluster id: the kubeconfig field of GET
// /v2/kubernetes/clusters/{id}, which the Civo provider's cluster resource exports as its
// kubeconfig too.
func Civo(ctx context.Context, get Get, id string) ([]byte, error) {
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

// DigitalOcean is the kubeconfig of DigitalOcean cluster id: the YAML body of GET
// /v2/kubernetes/clusters/{id}/kubeconfig.
func DigitalOcean(ctx context.Context, get Get, id string) ([]byte, error) {
	data, err := get(ctx, "/v2/kubernetes/clusters/"+url.PathEscape(id)+"/kubeconfig")
	if err != nil {
		return nil, errors.Wrapf(err, "read the kubeconfig of DigitalOcean cluster %s", id)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.Errorf("DigitalOcean cluster %s reports no kubeconfig", id)
	}
	return data, nil
}
