package upgrade

import (
	"context"
	"encoding/json"
)

// Cloud is what the plan asks a cloud about one cluster. The clouds' drivers implement it
// (pkg/cloud/<cloud>, the driver's Upgrades), and the plan only reads their answers: the
// requests are theirs.
type Cloud interface {
	// Find is the live cluster with id (its stack's), or when id is "" or names no cluster, the
	// one named name in region: its id and running version; ok is false when there is none.
	// Several of one name are an error.
	Find(ctx context.Context, id, name, region string) (live Live, ok bool, err error)
	// Offer is what the cloud lets the cluster upgrade to.
	Offer(ctx context.Context, live Live) (Offer, error)
	// Lint is the cloud's own checks of the cluster before an upgrade; nil when it has none.
	Lint(ctx context.Context, live Live) ([]Diagnostic, error)
	// Objects is how the cluster's own API lists its objects, through the cluster's kubeconfig
	// read from the cloud and kept in memory.
	Objects(ctx context.Context, live Live) (Lister, error)
	// Health is how the cluster is now: upgrade apply waits on it after each step.
	Health(ctx context.Context, live Live) (Health, error)
}

// Lister lists every object of a collection of a cluster's API at path (/api/v1/... or
// /apis/...), each as JSON; served is false, without an error, when the server does not serve
// the collection's API version. Its errors never quote the kubeconfig: it holds credentials.
type Lister func(ctx context.Context, path string) (items []json.RawMessage, served bool, err error)

// Live is a running cluster as the cloud reports it.
type Live struct {
	ID      string `json:"id"`
	Version string `json:"version"`
	// Distribution is the cluster's distribution where its cloud has several (k3s, talos); ""
	// elsewhere.
	Distribution string `json:"-"`
}

// Diagnostic is one finding of the cloud's pre-upgrade checks (DigitalOcean's clusterlint).
type Diagnostic struct {
	Check    string `json:"check"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Object   string `json:"object,omitempty"`
}

// Phase is where a cluster is in an upgrade, as its cloud's state says it.
type Phase string

const (
	// Settled: the cloud reports the cluster running (DigitalOcean's "running", Civo's "ACTIVE").
	Settled Phase = "settled"
	// Moving: the cloud is changing the cluster (upgrading, provisioning, building).
	Moving Phase = "moving"
	// Broken: the cloud reports the cluster failed or degraded.
	Broken Phase = "broken"
)

// Health is a cluster as its cloud reports it at one moment, for upgrade apply's wait after a
// step: the version it runs, its state in the cloud's words and as a Phase, and its nodes as the
// cloud's node states count them (Nodes, NodesReady: a node whose state is the cloud's word for
// running).
type Health struct {
	Version string `json:"version"`
	State   string `json:"state"`
	Phase   Phase  `json:"phase"`
	Nodes   int    `json:"nodes"`
	// NodesReady are the nodes the cloud reports running.
	NodesReady int `json:"nodesReady"`
}
