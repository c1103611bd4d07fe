// Package clouds is what the provider asks of a cloud, the same for every cloud: find a cluster,
// list the sizes a region offers for Kubernetes, and read and write the node pools the provider
// owns (Cloud); and what it knows of each cloud beside (Driver: its NodeClass kind, providerIDs,
// token, reservation). Each cloud is one file here and one line in the table (drivers.go). Its
// calls go through clusterplane's own clients (pkg/cloud/<cloud>), so their retries, pacing and
// errors that never quote a token hold here too.
package clouds

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

// Cluster is a managed cluster as the provider needs it: its id, region and whether it runs.
type Cluster struct {
	ID, Name, Region string
	// State is the cloud's word for the cluster's state; Running says whether nodes may be added.
	State   string
	Running bool
}

// Size is a node size the cluster's region offers for Kubernetes.
type Size struct {
	Name string
	// Family is the size's family (DigitalOcean's slug before its first '-', Civo's name before
	// ".kube."); Tags are properties a term may ask for ("gpu", "amd", "intel", "dedicated").
	Family string
	Tags   []string
	// CPUs, MemoryMiB and GPUs are the size's shape.
	CPUs, MemoryMiB, GPUs int64
	// MonthlyPrice is in US dollars; 0 when no price is known (the size is then never offered:
	// an unknown price must not read as free).
	MonthlyPrice float64
	// HourlyPrice is what Karpenter compares.
	HourlyPrice float64
}

// Pool is a node pool of a cluster: its mark is "" when the provider did not make it.
type Pool struct {
	ID, Name, Size string
	Mark           string
	Count          int
	Nodes          []Node
}

// Node is one node of a pool: ID is the cloud's id of the node within the pool (what a delete
// names), Name the Kubernetes node's name and ProviderID the node's spec.providerID.
type Node struct {
	ID, Name, ProviderID string
	// Ready says whether the cloud reports the node running; Going that the cloud is deleting
	// or draining it (DigitalOcean lists a deleted node for a while, in state deleting).
	Ready, Going bool
}

// PoolSpec is a new pool: the provider's mark, its size, its first count, and what every node
// carries.
type PoolSpec struct {
	Mark   string
	Size   string
	Count  int
	Labels map[string]string
	Taints []Taint
	Tags   []string
}

// Taint is a taint on every node of a pool.
type Taint struct {
	Key, Value, Effect string
}

// Cloud is one cloud's API with one token.
type Cloud interface {
	// Name is the cloud's id, its Driver's.
	Name() string
	// FindCluster finds the cluster by id or by name; region narrows a Civo search (every
	// region when ""). A cluster that is not there is ErrClusterNotFound.
	FindCluster(ctx context.Context, id, name, region string) (Cluster, error)
	// Sizes are the sizes region offers for Kubernetes, priced.
	Sizes(ctx context.Context, region string) ([]Size, error)
	// Pools are the cluster's pools with their nodes, the provider's with their mark.
	Pools(ctx context.Context, c Cluster) ([]Pool, error)
	// CreatePool makes a pool carrying spec.Mark and returns it as the cloud answers.
	CreatePool(ctx context.Context, c Cluster, spec PoolSpec) (Pool, error)
	// ResizePool sets a pool's count.
	ResizePool(ctx context.Context, c Cluster, p Pool, count int) error
	// DeleteNode deletes one node of a pool, lowering its count by one. A node already gone is
	// ErrNotFound.
	DeleteNode(ctx context.Context, c Cluster, p Pool, n Node) error
	// DeletePool deletes a pool. A pool already gone is ErrNotFound.
	DeletePool(ctx context.Context, c Cluster, p Pool) error
	// ProviderIDPrefix is what every providerID of the cloud's nodes starts with.
	ProviderIDPrefix() string
	// Requests is how many requests went to the cloud.
	Requests() int
}

type sentinel string

func (s sentinel) Error() string { return string(s) }

// ErrClusterNotFound and ErrNotFound are what the cloud said of something not there;
// ErrClusterAmbiguous that the name given finds more than one cluster (Civo's names are unique
// per region only), so the id or the region must say which.
const (
	ErrClusterNotFound  = sentinel("the cluster was not found")
	ErrNotFound         = sentinel("not found")
	ErrClusterAmbiguous = sentinel("more than one cluster has that name")
)

// Mark is what the provider's pools of a NodeClass with a given spec carry: a rotation.Mark (the
// one mark of clusterplane's pools) of the NodeClass's digest (its kind and name) and the spec's
// hash, "<12 hex>-<12 hex>", a valid DigitalOcean tag part and Kubernetes label value. A pool per
// (NodeClass, size, spec): nodes of a changed spec go into new pools with the new labels and
// taints, and the old pools empty as their nodes are replaced. The provider's tag prefix and
// label differ from rotations', so neither takes the other's pools.
func Mark(kind, name, specHash string) string {
	return rotation.Mark{Stack: rotation.Digest("clusterplane karpenter nodeclass\x00" + kind + "\x00" + name),
		ID: rotation.Digest(specHash)}.String()
}

// IsMark tells whether s is a mark as Mark writes it.
func IsMark(s string) bool {
	_, ok := rotation.ParseMark(s)
	return ok
}

// retryRule is the retry of the clouds' reads, resizes and deletes: asking them again does no
// harm (a resize sets an absolute count). Creates are never asked again by it: each cloud's
// create goes through cloudapi.CreateOnce, which looks for the pool before it sends again.
var retryRule = cloudapi.Backoff(3, 500*time.Millisecond)

// findPool is the cluster's pool carrying mark and named name, the one a create made.
func findPool(ctx context.Context, cloud Cloud, c Cluster, mark, name string) (Pool, bool, error) {
	pools, err := cloud.Pools(ctx, c)
	if err != nil {
		return Pool{}, false, err
	}
	for _, p := range pools {
		if p.Mark == mark && p.Name == name {
			return p, true, nil
		}
	}
	return Pool{}, false, nil
}

// apiHost is the host of the API at base (own when base is ""): only the host, since the URL may
// carry credentials (user:password@) or a path with a key, which errors must never quote.
func apiHost(base, own string) string {
	if base == "" {
		base = own
	}
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return "the API URL"
	}
	return u.Host
}

// withHost names host in an error that got no answer from the cloud: cloudapi's "no answer"
// leaves the URL out on purpose, and a user who set DIGITALOCEAN_API_URL or CIVO_API_URL wrong
// needs to see which host was tried.
func withHost(host string, err error) error {
	var e *cloudapi.Error
	if err == nil || !errors.As(err, &e) || e.Status != 0 {
		return err
	}
	return fmt.Errorf("no answer from %s: %w", host, err)
}
