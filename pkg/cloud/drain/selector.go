package drain

import (
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/pkg/errors"
)

// PoolSelector is the node labels the cloud (its driver's ID) puts on a pool's nodes, as its
// driver says (cloud.Driver.PoolSelector); a cloud no driver knows is an error naming it.
func PoolSelector(id, name, poolID string) (map[string]string, error) {
	d, err := clouds.Get(cloud.ID(id))
	if err != nil {
		return nil, errors.Wrapf(err, "no node labels known for the pools of cloud %q", id)
	}
	return d.PoolSelector(name, poolID)
}
