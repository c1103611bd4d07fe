package cloudlist_test

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
)

// A cloud the list does not know is an error naming it, or no cloud at all, never another cloud's
// facts: a name that only begins like a known cloud's is not that cloud.
// Promise: unknown-cloud-is-an-error-never-another-cloud
func TestACloudTheListDoesNotKnowIsAnErrorNamingItNeverAnotherCloud(t *testing.T) {
	for _, id := range []cloudfacts.ID{"othercloud", "", "civox", "DIGITALOCEAN"} {
		c, err := cloudlist.Get(id)
		if err == nil || c != nil || !strings.Contains(err.Error(), `"`+string(id)+`"`) {
			t.Errorf("Get(%q) = %v, %v; want no cloud and an error naming it", id, c, err)
		}
	}
	for _, name := range []protoreflect.FullName{
		"clusterplane.provider.othercloud.v1.Cluster",
		"clusterplane.provider.civox.v1.Cluster",
		"clusterplane.provider.Cluster",
		"civo.v1.Cluster",
	} {
		if c, ok := cloudlist.OfMessage(name); ok || c != nil {
			t.Errorf("OfMessage(%s) = %v, %v; want no cloud", name, c, ok)
		}
	}
	// The known clouds are still found, so the refusals above are not of every name.
	for _, id := range cloudlist.IDs() {
		if c, err := cloudlist.Get(id); err != nil || c.ID() != id {
			t.Errorf("Get(%q) = %v, %v", id, c, err)
		}
		if c, ok := cloudlist.OfMessage(protoreflect.FullName("clusterplane.provider." + string(id) + ".v1.Cluster")); !ok || c.ID() != id {
			t.Errorf("OfMessage of %s's package = %v, %v", id, c, ok)
		}
	}
}
