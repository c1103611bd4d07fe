// Package clouds is the list of cloud drivers, the one place that names them all: code that
// needs a cloud to do something finds its driver here, by ID or by a stack input's provider
// config, rather than branching on the cloud's name. A cloud is added by its driver's line in All
// and its facts' line in pkg/cloudfacts/cloudlist, in the same place of both lists (the test
// TestTheDriversAreTheCloudsOfTheFactsListInItsOrder holds them together).
package clouds

import (
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// All returns every cloud's driver, in the order the docs list the clouds.
func All() []cloud.Driver {
	return []cloud.Driver{civo.Driver{}, digitalocean.Driver{}}
}

// IDs are the clouds' IDs, in All's order, which is the facts' list's (cloudlist.IDs).
func IDs() []cloud.ID { return cloudlist.IDs() }

// Get is the driver of the cloud id; a cloud no driver knows is an error naming it, never
// another cloud's driver. The error is the facts' list's, which knows the same clouds.
func Get(id cloud.ID) (cloud.Driver, error) {
	for _, d := range All() {
		if d.ID() == id {
			return d, nil
		}
	}
	_, err := cloudlist.Get(id)
	if err == nil {
		err = errors.Errorf("no cloud driver for %q, though its facts are listed", id)
	}
	return nil, err
}

// ByProviderConfig is the driver whose provider-config message is m; false for any other
// message. The message's full name must be the cloud's exactly (cloudlist.ByProviderConfig): a
// name that only contains a cloud's is not that cloud.
func ByProviderConfig(m protoreflect.MessageDescriptor) (cloud.Driver, bool) {
	return driverOf(cloudlist.ByProviderConfig(m))
}

// OfMessage is the driver of the cloud whose API package holds the message (or enum) named
// name, clusterplane.provider.<ID>.… (cloudlist.OfMessage); false for a message of no cloud's
// package, never another cloud's driver.
func OfMessage(name protoreflect.FullName) (cloud.Driver, bool) {
	return driverOf(cloudlist.OfMessage(name))
}

// driverOf is the driver of the cloud c, found by its facts; false when ok is, or when no driver
// has c's ID (the lists' test keeps every cloud's facts with a driver).
func driverOf(c cloudfacts.Cloud, ok bool) (cloud.Driver, bool) {
	if !ok {
		return nil, false
	}
	d, err := Get(c.ID())
	return d, err == nil
}

// OfInput is the driver of the cloud a stack input deploys to (cloudlist.OfInput says which, by
// its provider config); false for a message of no cloud a driver knows.
func OfInput(input proto.Message) (cloud.Driver, bool) {
	return driverOf(cloudlist.OfInput(input))
}
