package drain

import "github.com/pkg/errors"

// The clouds PoolSelector knows, by their Pulumi package names.
const (
	DigitalOcean = "digitalocean"
	Civo         = "civo"
)

// Node labels the clouds put on every node of a pool.
//
// DigitalOcean (DOKS) labels each node with its pool's name, its pool's id and its own id:
// doks.digitalocean.com/node-pool=<pool name>, doks.digitalocean.com/node-pool-id=<pool uuid>,
// doks.digitalocean.com/node-id=<node uuid>; the cluster autoscaler's DigitalOcean provider
// finds nodes by the doks.digitalocean.com namespace (kubernetes/autoscaler,
// cluster-autoscaler/cloudprovider/digitalocean/digitalocean_node_group.go, nodeIDLabel), and
// DigitalOcean's documentation tells users to select a pool with
// doks.digitalocean.com/node-pool. Pool names are unique within a cluster (the API refuses a
// second pool of the same name), so the name selects exactly one pool.
//
// Civo labels each node with its pool's id: kubernetes.civo.com/civo-node-pool=<pool id>
// (kubernetes/autoscaler, cluster-autoscaler/cloudprovider/civo/civo_node_group.go,
// TemplateNodeInfo, sets that label to the node group's id, which is the pool's id). Civo pools
// have no name but their id.
const (
	DigitalOceanPoolLabel   = "doks.digitalocean.com/node-pool"
	DigitalOceanPoolIDLabel = "doks.digitalocean.com/node-pool-id"
	DigitalOceanNodeIDLabel = "doks.digitalocean.com/node-id"
	CivoPoolLabel           = "kubernetes.civo.com/civo-node-pool"
)

// PoolSelector is the node labels each cloud puts on a pool's nodes: DigitalOcean's pool name
// (doks.digitalocean.com/node-pool=<name>), Civo's pool id (kubernetes.civo.com/civo-node-pool=<id>).
func PoolSelector(cloud, name, id string) (map[string]string, error) {
	switch cloud {
	case DigitalOcean:
		if name == "" {
			return nil, errors.New("a DigitalOcean pool's nodes are found by the pool's name, and it has none")
		}
		return map[string]string{DigitalOceanPoolLabel: name}, nil
	case Civo:
		if id == "" {
			return nil, errors.New("a Civo pool's nodes are found by the pool's id, and it has none")
		}
		return map[string]string{CivoPoolLabel: id}, nil
	}
	return nil, errors.Errorf("no node labels known for the pools of cloud %q", cloud)
}
