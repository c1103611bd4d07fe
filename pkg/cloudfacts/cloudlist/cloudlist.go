// Package cloudlist is the list of what each cloud is (pkg/cloudfacts/<cloud>), the one place
// that names every cloud's facts: code that needs a cloud's facts finds them here, by ID, by a
// stack input's provider config or by a message's package, rather than branching on the cloud's
// name. The drivers' list (pkg/cloud/clouds) names each cloud's driver in the same order, and its
// test keeps the two lists in agreement.
package cloudlist

import (
	"slices"
	"strings"

	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/civo"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/digitalocean"
)

// All returns every cloud's facts, in the order the docs list the clouds.
func All() []cloudfacts.Cloud {
	return []cloudfacts.Cloud{civo.Facts{}, digitalocean.Facts{}}
}

// IDs are the clouds' IDs, in All's order.
func IDs() []cloudfacts.ID {
	var out []cloudfacts.ID
	for _, c := range All() {
		out = append(out, c.ID())
	}
	return out
}

// Get is the cloud id; a cloud nothing here knows is an error naming it, never another cloud.
func Get(id cloudfacts.ID) (cloudfacts.Cloud, error) {
	for _, c := range All() {
		if c.ID() == id {
			return c, nil
		}
	}
	var known []string
	for _, k := range IDs() {
		known = append(known, string(k))
	}
	return nil, errors.Errorf("no cloud %q (clouds: %s)", id, strings.Join(known, ", "))
}

// ByProviderConfig is the cloud whose provider-config message is m; false for any other message.
// The message's full name must be the cloud's exactly: a name that only contains a cloud's is not
// that cloud.
func ByProviderConfig(m protoreflect.MessageDescriptor) (cloudfacts.Cloud, bool) {
	i := slices.IndexFunc(All(), func(c cloudfacts.Cloud) bool { return c.ProviderConfig().Message == m.FullName() })
	if i < 0 {
		return nil, false
	}
	return All()[i], true
}

// apiPackage is where the API keeps each cloud's kinds: clusterplane.provider.<cloud ID>.
const apiPackage = "clusterplane.provider."

// OfMessage is the cloud whose API package holds the message (or enum) named name,
// clusterplane.provider.<ID>.…; false for a message of no cloud's package, never another cloud.
func OfMessage(name protoreflect.FullName) (cloudfacts.Cloud, bool) {
	i := slices.IndexFunc(All(), func(c cloudfacts.Cloud) bool {
		return strings.HasPrefix(string(name), apiPackage+string(c.ID())+".")
	})
	if i < 0 {
		return nil, false
	}
	return All()[i], true
}

// OfInput is the cloud a stack input deploys to: the one whose provider config its
// providerConfig field holds (by the config message's full name, as ByProviderConfig decides);
// false for a message without one, or with a provider config no cloud's facts name.
func OfInput(input proto.Message) (cloudfacts.Cloud, bool) {
	fd := input.ProtoReflect().Descriptor().Fields().ByJSONName(kindfield.StackInputProviderConfig)
	if fd == nil || fd.Message() == nil {
		return nil, false
	}
	return ByProviderConfig(fd.Message())
}
