package kinds

import (
	"context"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"google.golang.org/protobuf/proto"
)

// Rotate readies what up needs to carry out a rotation of the stack input's pool (pkg/change/rotation):
// the cloud's pool API for the pool's cluster, the cluster's kubeconfig read from the cloud into
// memory, and how the pool's rollout block says to drain. A kind whose rotations up does not
// carry out has none (up then refuses them).
type Rotate func(ctx context.Context, stackInput proto.Message, resolve Resolve) (*Rotation, error)

// Rotation is the cloud side of one pool's rotation.
type Rotation struct {
	Cloud Pools
	// NodeLabels names the cloud whose node labels select a pool's nodes (pkg/cloud/drain's
	// PoolSelector: "digitalocean", "civo"); the kind need not link Kubernetes' client for it.
	NodeLabels string
	// Kubeconfig is the cluster's kubeconfig, a secret: held in memory, never written or shown.
	Kubeconfig []byte
	// WaitRunning waits until the cloud reports every node of the pool of that name running,
	// before the cluster is asked whether they are Ready; nil when the cloud need not be asked.
	WaitRunning func(ctx context.Context, name string, timeout time.Duration) error
	// Nodes is how many nodes the new pool starts with, all of them Ready before the old pool is
	// drained; ReadyTimeout how long they may take.
	Nodes        int
	ReadyTimeout time.Duration
	Drain        rotation.DrainOptions
}

// Pools is the cloud's pool API as a rotation asks it: pkg/change/rotation's Cloud but the node
// selector, which pkg/deploy adds from NodeLabels.
type Pools interface {
	Find(ctx context.Context, name string) (id string, err error)
	Create(ctx context.Context, name string) (id string, err error)
	Delete(ctx context.Context, id string) error
	Rename(ctx context.Context, id, name string) error
}
