// Package kubeconfig holds the rules by which a cluster's kubeconfig is read from its cloud's
// API: each cloud's driver (pkg/cloud/<cloud>, ReadKubeconfig) says its path and how its answer
// holds the kubeconfig, refuses an answer without one, and names the cluster in its errors but
// never quotes the answer, which holds the kubeconfig.
//
// A pool rotation (pkg/change/rotation) and upgrade plan (pkg/change/upgrade) read it through
// different HTTP clients (Civo's pool client, godo, cloudapi); each hands its own GET as a Get, so
// the rules live with the drivers and the clients stay as they are.
//
// The kubeconfig is a secret: it is returned in memory, never written, never in an error.
package kubeconfig

import "context"

// Get sends GET path (without a query) to a cloud's API with the caller's client and token, and
// returns the body of a 2xx answer; any other answer is an error that does not quote a 2xx body.
// A Civo Get adds the client's region itself, as Civo's pool client (pkg/cloud/civo/pools) does.
type Get func(ctx context.Context, path string) ([]byte, error)
