package civo

import (
	"github.com/clusterplane/clusterplane/pkg/cloud"
	civofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/civo"
)

// ID names Civo.
const ID = civofacts.ID

// Driver is Civo as clusterplane asks it (cloud.Driver): what Civo is (its facts) and
// what it does, through the clients of this package.
type Driver struct{ civofacts.Facts }

var _ cloud.Driver = Driver{}

// The facts' names, as the driver's callers name them.
const (
	TokenEnv  = civofacts.TokenEnv
	APIURLEnv = civofacts.APIURLEnv
	PerPage   = civofacts.PerPage
)

// Env is Civo's environment (its facts').
var Env = civofacts.Env
