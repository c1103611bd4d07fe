package drain

import (
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
)

// The clouds the tests drain pools of, by their drivers' IDs, and the node label of a
// DigitalOcean pool's name, which the tests' nodes carry. The package itself asks the drivers.
const (
	DigitalOcean          = string(digitalocean.ID)
	Civo                  = string(civo.ID)
	DigitalOceanPoolLabel = digitalocean.PoolLabel
)
