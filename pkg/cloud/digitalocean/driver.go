package digitalocean

import (
	"github.com/clusterplane/clusterplane/pkg/cloud"
	dofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/digitalocean"
)

// ID names DigitalOcean.
const ID = dofacts.ID

// Driver is DigitalOcean as clusterplane asks it (cloud.Driver): what DigitalOcean is (its facts) and
// what it does, through the clients of this package.
type Driver struct{ dofacts.Facts }

var _ cloud.Driver = Driver{}

// The facts' names, as the driver's callers name them.
const (
	TokenEnv  = dofacts.TokenEnv
	APIURLEnv = dofacts.APIURLEnv
	PerPage   = dofacts.PerPage
)

// Env is DigitalOcean's environment (its facts').
var Env = dofacts.Env

// The node labels DigitalOcean puts on a pool's nodes, as its facts name them.
const (
	PoolLabel   = dofacts.PoolLabel
	PoolIDLabel = dofacts.PoolIDLabel
	NodeIDLabel = dofacts.NodeIDLabel
)
