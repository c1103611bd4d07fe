package kinds

import (
	"context"
	"time"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"google.golang.org/protobuf/proto"
)

// Rotate readies what up needs to carry out a rotation of the stack input's pool (pkg/change/rotation):
// the cloud's pool API for the pool's cluster, the cluster's kubeconfig read from the cloud into
// memory, and how the pool's rollout block says to drain. A kind whose rotations up does not
// carry out has none (up then refuses them).
//
// id is the cloud id of the kind's own resource (its cluster or pool) as the stack's state
// holds it, "" when it holds none.
type Rotate func(ctx context.Context, stackInput proto.Message, id string, resolve Resolve) (*Rotation, error)

// Rotation is the cloud side of one pool's rotation.
type Rotation struct {
	Cloud Pools
	// NodeLabels names the cloud whose node labels select a pool's nodes (pkg/cloud/drain's
	// PoolSelector: "digitalocean", "civo"); the kind need not link Kubernetes' client for it.
	NodeLabels string
	// Kubeconfig reads the cluster's kubeconfig, a secret: held in memory, never written or
	// shown. A function, so that drift, which asks only the pools, does not read it.
	Kubeconfig func(ctx context.Context) ([]byte, error)
	// DeleteCommand is the command a user runs to delete the pool of that id by hand (the
	// cloud's own CLI), for an orphan drift reports.
	DeleteCommand func(id string) string
	// WaitRunning waits until the cloud reports every node of the pool of that name running,
	// before the cluster is asked whether they are Ready; nil when the cloud need not be asked.
	WaitRunning func(ctx context.Context, name string, timeout time.Duration) error
	// Nodes is how many nodes the new pool starts with, all of them Ready before the old pool is
	// drained; ReadyTimeout how long they may take.
	Nodes        int
	ReadyTimeout time.Duration
	Drain        rotation.DrainOptions
	// Final is the name the new pool ends with: the manifest's name of the pool.
	Final string
	// OldPool, when set, finds the cloud id of the pool rotated: a pool the stack's state holds
	// inside another resource, not as one of its own, such as a DigitalOcean cluster's default
	// pool, part of the cluster resource (the pool the provider reads as the default pool). The
	// state then keeps that resource's id, and a refresh reads the new pool into it. nil for a
	// pool that is the stack's own resource: its id comes from the state, which is then pointed
	// at the new pool.
	OldPool func(ctx context.Context) (id string, err error)
	// StateID is the id the stack's state gives the pool of cloud id id once the rotation is
	// done, for its refresh to read that pool; nil: id itself.
	StateID func(id string) string
}

// DefaultReadyTimeout is how long a rotation waits for the new pool's nodes to run and be Ready
// when the rollout block does not say (readyTimeoutMinutes).
const DefaultReadyTimeout = rotation.DefaultReadyTimeoutMinutes * time.Minute

// RolloutWaits are the waits a pool's rollout block sets: how long the new pool's nodes may take
// to be Ready, and how to drain the old pool's, each with its default when the block leaves it 0.
func RolloutWaits(r *sharedv1.Rollout) (ready time.Duration, drain rotation.DrainOptions) {
	ready = DefaultReadyTimeout
	if m := r.GetReadyTimeoutMinutes(); m > 0 {
		ready = time.Duration(m) * time.Minute
	}
	minutes := r.GetDrainTimeoutMinutes()
	if minutes == 0 {
		minutes = rotation.DefaultDrainTimeoutMinutes
	}
	return ready, rotation.DrainOptions{Timeout: time.Duration(minutes) * time.Minute, DeleteEmptyDirData: r.GetDeleteEmptyDirData()}
}

// Pools is the cloud's pool API as a rotation asks it: pkg/change/rotation's Cloud but the node
// selector, which pkg/deploy adds from NodeLabels; and Marked, with which drift finds a pool a
// rotation left behind.
type Pools interface {
	// Find is the id of the cluster's pool of that name carrying mark, "" when there is none,
	// a *rotation.ForeignPoolError when the pool of that name carries no such mark.
	Find(ctx context.Context, name, mark string) (id string, err error)
	// Create creates the pool of the manifest's settings named name, carrying mark.
	Create(ctx context.Context, name, mark string) (id string, err error)
	Delete(ctx context.Context, id string) error
	Rename(ctx context.Context, id, name string) error
	// Marked are the cluster's pools that carry a rotation's mark.
	Marked(ctx context.Context) ([]rotation.MarkedPool, error)
}

// PoolClient is a cloud's pool moves from a client that also reads the cluster's kubeconfig,
// says how a pool is deleted by hand and waits for a pool's nodes to run.
type PoolClient interface {
	Pools
	Kubeconfig(ctx context.Context) ([]byte, error)
	DeleteCommand(id string) string
	WaitRunning(ctx context.Context, name string, timeout time.Duration) error
}

// PoolRotation is the rotation through p of a pool whose nodes the labels of cloud nodeLabels
// select, into a new pool of nodes nodes named final, with the waits rollout sets. The kinds
// whose client serves all of a rotation build theirs with it, and set what is their own after.
func PoolRotation(p PoolClient, nodeLabels string, nodes int, rollout *sharedv1.Rollout, final string) *Rotation {
	ready, drain := RolloutWaits(rollout)
	return &Rotation{
		Cloud:         p,
		NodeLabels:    nodeLabels,
		Kubeconfig:    p.Kubeconfig,
		DeleteCommand: p.DeleteCommand,
		WaitRunning:   p.WaitRunning,
		Nodes:         nodes,
		ReadyTimeout:  ready,
		Drain:         drain,
		Final:         final,
	}
}
