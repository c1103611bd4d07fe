package clouds

import (
	"fmt"
	"slices"
	"strings"

	v1 "github.com/clusterplane/clusterplane/karpenter/pkg/apis/v1"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
)

// Driver is one cloud as the provider serves it: everything but its API calls (Cloud) that the
// provider, the operator and the chart need to know of it. Each cloud's file declares its
// driver; code outside those files asks the table and never names a cloud.
type Driver struct {
	// ID is the cloud's id as the main module's driver (pkg/cloud) names it: what its NodeClass's
	// Cloud says, what its Cloud's Name is, and the first part of a NodeClaim's cluster annotation.
	ID string
	// Name is the cloud's name in prose.
	Name string
	// Kind is the cloud's NodeClass kind; NodeClass makes an empty one and NodeClasses an empty
	// list of them.
	Kind        string
	NodeClass   func() v1.NodeClass
	NodeClasses func() v1.NodeClassList
	// ProviderIDPrefix is what every providerID of the cloud's nodes starts with.
	ProviderIDPrefix string
	// Env names the variables of the cloud's token and API URL: the main module's, so that the
	// operator reads what clusterplane reads.
	Env cloudfacts.Env
	// New is the cloud's API at base (the cloud's own when "") with token.
	New func(base, token string) Cloud
	// Reserve is how much of a node the cloud keeps from its pods.
	Reserve Reservation
}

// Reservation is a recipe of what a node keeps for its kubelet and system daemons beside the
// kubelet's eviction threshold. The zero value is no recipe: a driver must choose one.
type Reservation int

// The recipes instancetype.Overhead knows.
const (
	// ReserveNothing: the node reserves nothing but the eviction threshold.
	ReserveNothing Reservation = iota + 1
	// ReserveGKEFormula: CPU and memory by GKE's published formula (instancetype's comment says
	// which), for a cloud that reserves by a table its API does not return.
	ReserveGKEFormula
)

// drivers are the clouds the provider serves, in the order the operator reads their tokens. A
// cloud is added by its file (its Cloud and its Driver) and its line here.
var drivers = []Driver{digitalOceanDriver, civoDriver}

// Drivers are every cloud's driver, in the table's order.
func Drivers() []Driver { return slices.Clone(drivers) }

// ByID is the driver of the cloud id; a cloud the table does not hold is an error naming the
// ones it does, never another cloud's driver.
func ByID(id string) (Driver, error) {
	i := slices.IndexFunc(drivers, func(d Driver) bool { return d.ID == id })
	if i < 0 {
		return Driver{}, fmt.Errorf("no cloud %q: the provider serves %s", id, strings.Join(ids(), ", "))
	}
	return drivers[i], nil
}

// ByKind is the driver whose NodeClass kind is kind; an unknown kind is an error, never another
// cloud's driver.
func ByKind(kind string) (Driver, error) {
	i := slices.IndexFunc(drivers, func(d Driver) bool { return d.Kind == kind })
	if i < 0 {
		var kinds []string
		for _, d := range drivers {
			kinds = append(kinds, d.Kind)
		}
		return Driver{}, fmt.Errorf("no NodeClass kind %q: the provider serves %s", kind, strings.Join(kinds, ", "))
	}
	return drivers[i], nil
}

// KindOf is the kind of nc, by the cloud it names.
func KindOf(nc v1.NodeClass) (string, error) {
	d, err := ByID(nc.Cloud())
	if err != nil {
		return "", fmt.Errorf("NodeClass %s: %w", nc.GetName(), err)
	}
	return d.Kind, nil
}

// Resource is the NodeClass kind's resource (its plural in lower case), as RBAC names it.
func (d Driver) Resource() string { return strings.ToLower(d.Kind) + "es" }

func ids() []string {
	var out []string
	for _, d := range drivers {
		out = append(out, d.ID)
	}
	return out
}
