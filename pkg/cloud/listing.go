package cloud

// What the fleet scan (pkg/cloud/scan) asks of a cloud: which Pulumi resource types its lists
// read, and the lists themselves, each listed resource with its properties as the pinned
// provider's Read would record them from the same answer. The scan compares those properties with
// the ones a stack's state holds; how the provider reads the cloud's answer is the driver's, with
// where in the provider's source it comes from.

// ScanReader is how the scan reads one resource type from its cloud's lists.
type ScanReader struct {
	// List is the list the resource is looked up in, by the id its state holds.
	List ListOf
	// What names the resource for people ("Civo firewall").
	What string
	// Compares are the properties the scan compares (Pulumi names, dots into a nested block:
	// "nodePool.size").
	Compares []string
	// Region, when set, is the region whose list holds the resource, read from its recorded
	// outputs; nil for a cloud that lists every region at once.
	Region func(outputs map[string]any) string
	// Leaves, when set, tells whether the cloud's value live of a property the program leaves to
	// the cloud (ignoreChanges) is one the module leaves to it, given what the stack sent (inputs)
	// and recorded (outputs); nil leaves every such value to the cloud.
	Leaves func(path string, live, inputs, outputs map[string]any) bool
	// UnsentKept are the properties (top-level, Pulumi names) the provider's schema makes
	// Optional and Computed: when the program sends none, whatever the cloud holds is no drift.
	UnsentKept map[string]bool
}

// ListOf names one of a Listing's lists.
type ListOf int

// The lists.
const (
	ListsClusters ListOf = iota
	ListsPools
	ListsFirewalls
)

// Listing is one list's answer (an account's, or one region's where the cloud lists by region),
// read as the provider would read each resource: by the id a resource's state holds.
type Listing struct {
	Clusters, Pools, Firewalls map[string]Listed
	// PoolsLeftOut are the ids of listed clusters whose answer leaves out their pools: a pool of
	// one is not judged rather than missing, since the list says nothing of it.
	PoolsLeftOut map[string]bool
	// MarkedPools are the listed pools that carry a stack's mark (package stackmark), which
	// drift names when no stack records them, by ListedPool.AdoptID.
	MarkedPools map[string]ListedPool
}

// NewListing is a listing with nothing in it yet.
func NewListing() Listing {
	return Listing{Clusters: map[string]Listed{}, Pools: map[string]Listed{}, Firewalls: map[string]Listed{}, PoolsLeftOut: map[string]bool{},
		MarkedPools: map[string]ListedPool{}}
}

// Listed is one listed resource.
type Listed struct {
	// Cluster is the cluster the resource is, or the one a pool is in; none for a firewall.
	Cluster ListedCluster
	// Properties are the resource's properties as the provider's Read would record them (Pulumi
	// names); Kept stands for one the Read leaves as the state holds it.
	Properties map[string]any
}

// ListedCluster is a cluster as the cloud lists it.
type ListedCluster struct {
	Cloud, ID, Name, Region string
	// Tags are the cluster's tags, as the cloud lists them (clusterplane's own tags say a stack
	// deployed it).
	Tags []string
}

// ListedPool is a node pool as the cloud lists it, in its cluster.
type ListedPool struct {
	Cluster ListedCluster
	// ID is the id the pool's stack's state holds (DigitalOcean's pool id, Civo's pool name);
	// AdoptID is what `clusterplane adopt --id` takes for it (Civo's CLUSTER_ID:POOL_NAME).
	ID, AdoptID, Name string
	// Tags are the pool's tags; on a cloud whose pools keep labels and no tags (Civo), the stack
	// mark its label carries, as the tag it stands for.
	Tags []string
}

// Kept stands in a listing for a property the provider's Read leaves as the state holds it when
// the cloud's answer has no value for it (it sets the attribute only when the answer has one):
// the provider's refresh finds no drift in it then, so neither does the scan.
type Kept struct{}

// Unread stands in a listing for a property the cloud's answer leaves out (or leaves empty) where
// the cloud always gives one: the provider's refresh reads the resource on its own, not from the
// list, so the list says nothing of what that read would find. A stack with an Unread property
// it compares is not judged (the engine reads it), never judged as recorded.
type Unread struct{}

// Counted is a client that counts the requests it made, retries included.
type Counted interface{ Requests() int }
