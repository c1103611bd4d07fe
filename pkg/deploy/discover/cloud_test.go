package discover_test

import (
	"context"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/deploy/discover"
)

// The cloud is asked of its driver: a cloud no driver knows is refused by its name before any
// request, never read as another cloud.
func TestACloudIsReadByItsDriverAndAnUnknownOneIsRefusedByName(t *testing.T) {
	for _, tc := range []struct {
		name, cloud, want string
	}{
		{name: "an unknown cloud is refused, naming it and the clouds", cloud: "aws", want: `unknown cloud "aws": civo or digitalocean`},
		{name: "a cloud's name in another case is no cloud", cloud: "Civo", want: `unknown cloud "Civo"`},
		{name: "no cloud at all is refused", cloud: "", want: `unknown cloud ""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := discover.Discover(context.Background(), discover.Options{Kinds: registry.Kinds(), Cloud: tc.cloud,
				Token: "t", APIURL: "http://127.0.0.1:1"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			}
			if err := discover.KnownCloud(tc.cloud); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("KnownCloud(%q) = %v, want one saying %q", tc.cloud, err, tc.want)
			}
		})
	}
	for _, id := range discover.Clouds() {
		if err := discover.KnownCloud(id); err != nil {
			t.Errorf("KnownCloud(%q) = %v, want nil: a driver knows it", id, err)
		}
	}
}

// What a driver names as its kinds are kinds of the one list, so that what discover writes for a
// cloud reads back as a manifest of that cloud.
func TestEachDriversKindsAreKindsOfTheList(t *testing.T) {
	for _, d := range clouds.All() {
		k := d.Kinds()
		for _, name := range []string{k.Cluster, k.Pool} {
			if _, ok := registry.Kinds().ByName(name); !ok || name == "" {
				t.Errorf("%s's driver names the kind %q, which iac/pulumi/registry lacks", d.ID(), name)
			}
		}
		if want := string(d.ID()) + ".clusterplane.dev/v1"; k.APIVersion != want {
			t.Errorf("%s's driver says apiVersion %q, want %q", d.ID(), k.APIVersion, want)
		}
	}
}
