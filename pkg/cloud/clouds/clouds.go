// Package clouds is the list of cloud drivers, the one place that names them all: code that
// needs a cloud's answer finds its driver here, by ID or by a stack input's provider config,
// rather than branching on the cloud's name. A cloud is added by its driver's line in All.
package clouds

import (
	"slices"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// All returns every cloud's driver, in the order the docs list the clouds.
func All() []cloud.Driver {
	return []cloud.Driver{civo.Driver{}, digitalocean.Driver{}}
}

// IDs are the clouds' IDs, in All's order.
func IDs() []cloud.ID {
	var out []cloud.ID
	for _, d := range All() {
		out = append(out, d.ID())
	}
	return out
}

// Get is the driver of the cloud id; a cloud no driver knows is an error naming it, never
// another cloud's driver.
func Get(id cloud.ID) (cloud.Driver, error) {
	for _, d := range All() {
		if d.ID() == id {
			return d, nil
		}
	}
	var known []string
	for _, k := range IDs() {
		known = append(known, string(k))
	}
	return nil, errors.Errorf("no cloud driver for %q (clouds: %s)", id, strings.Join(known, ", "))
}

// ByProviderConfig is the driver whose provider-config message is m; false for any other
// message. The message's full name must be the driver's exactly: a name that only contains a
// cloud's is not that cloud.
func ByProviderConfig(m protoreflect.MessageDescriptor) (cloud.Driver, bool) {
	i := slices.IndexFunc(All(), func(d cloud.Driver) bool { return d.ProviderConfig().Message == m.FullName() })
	if i < 0 {
		return nil, false
	}
	return All()[i], true
}

// apiPackage is where the API keeps each cloud's kinds: clusterplane.provider.<cloud ID>.
const apiPackage = "clusterplane.provider."

// OfMessage is the driver of the cloud whose API package holds the message (or enum) named
// name, clusterplane.provider.<ID>.…; false for a message of no cloud's package, never another
// cloud's driver.
func OfMessage(name protoreflect.FullName) (cloud.Driver, bool) {
	i := slices.IndexFunc(All(), func(d cloud.Driver) bool {
		return strings.HasPrefix(string(name), apiPackage+string(d.ID())+".")
	})
	if i < 0 {
		return nil, false
	}
	return All()[i], true
}
