package clouds_test

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
)

func TestEveryDriverIsFoundByItsIDAndByItsProviderConfig(t *testing.T) {
	for _, d := range clouds.All() {
		got, err := clouds.Get(d.ID())
		if err != nil || got.ID() != d.ID() {
			t.Errorf("Get(%q) = %v, %v; want its own driver", d.ID(), got, err)
		}
		if d.ProviderConfig().Message == "" || d.ProviderConfig().Token == "" || d.ProviderConfig().URL == "" {
			t.Errorf("%s's provider config names no message or field: %+v", d.ID(), d.ProviderConfig())
		}
		if d.Env().Name == "" || d.Env().TokenEnv == "" || d.Env().API == "" {
			t.Errorf("%s's environment is incomplete: %+v", d.ID(), d.Env())
		}
	}
}

func TestAnUnknownCloudIsAnErrorNamingItNeverAnotherCloudsDriver(t *testing.T) {
	d, err := clouds.Get(cloud.ID("othercloud"))
	if err == nil || !strings.Contains(err.Error(), `"othercloud"`) {
		t.Fatalf("Get(othercloud) = %v, %v; want an error naming the cloud", d, err)
	}
	if d, ok := clouds.ByProviderConfig((&structpb.Struct{}).ProtoReflect().Descriptor()); ok {
		t.Errorf("ByProviderConfig(a message of no cloud) = %s, want none", d.ID())
	}
}

func TestAMessageBelongsToTheCloudWhosePackageHoldsItAndToNoOther(t *testing.T) {
	tests := []struct {
		name    string
		message protoreflect.FullName
		want    cloud.ID // "" for none
	}{
		{"a Civo kind's spec is Civo's", "clusterplane.provider.civo.civokubernetescluster.v1.CivoKubernetesClusterSpec", "civo"},
		{"a DigitalOcean provider config is DigitalOcean's", "clusterplane.provider.digitalocean.v1.DigitalOceanProviderConfig", "digitalocean"},
		{"a package that only begins with a cloud's ID is no cloud's", "clusterplane.provider.civocloud.v1.Spec", ""},
		{"an unknown cloud's package is no cloud's", "clusterplane.provider.othercloud.v1.OthercloudKubernetesClusterSpec", ""},
		{"the shared package is no cloud's", "clusterplane.shared.v1.CloudResourceMetadata", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := clouds.OfMessage(tt.message)
			switch {
			case tt.want == "" && ok:
				t.Errorf("OfMessage(%s) = %s, want no cloud", tt.message, d.ID())
			case tt.want != "" && (!ok || d.ID() != tt.want):
				t.Errorf("OfMessage(%s) = %v, %t; want %s", tt.message, d, ok, tt.want)
			}
		})
	}
}

func TestOnlyACloudThatPublishesATokenShapeLooksForIt(t *testing.T) {
	const doToken = "dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	tests := []struct {
		id             cloud.ID
		wantShape      bool
		wantIgnoreCase bool
	}{
		{"civo", false, false},
		{"digitalocean", true, true},
	}
	for _, tt := range tests {
		t.Run(string(tt.id), func(t *testing.T) {
			d, err := clouds.Get(tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if got := d.TokenShape() != nil && d.TokenShape().MatchString(doToken); got != tt.wantShape {
				t.Errorf("%s's token shape matches a DigitalOcean token: %t, want %t", tt.id, got, tt.wantShape)
			}
			if d.TagsIgnoreCase() != tt.wantIgnoreCase {
				t.Errorf("%s's tags ignore case: %t, want %t", tt.id, d.TagsIgnoreCase(), tt.wantIgnoreCase)
			}
		})
	}
}

func TestEachCloudNamesTheDistributionOfAClusterType(t *testing.T) {
	tests := []struct {
		name              string
		id                cloud.ID
		clusterType, want string
	}{
		{"a Civo cluster without a type runs k3s", "civo", "", "k3s"},
		{"a Civo k3s cluster runs k3s", "civo", "k3s", "k3s"},
		{"a Civo talos cluster runs Talos", "civo", "talos", "talos"},
		{"a DigitalOcean cluster has no distribution to tell apart", "digitalocean", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := clouds.Get(tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if got := d.Distribution(tt.clusterType); got != tt.want {
				t.Errorf("Distribution(%q) = %q, want %q", tt.clusterType, got, tt.want)
			}
		})
	}
}

// The drivers' list and the facts' list name the same clouds in the same order, each driver
// embedding its own cloud's facts: a cloud added to one list alone fails here, not in a user's
// run, where the manifests' checks would know a cloud no driver deploys.
func TestTheDriversAreTheCloudsOfTheFactsListInItsOrder(t *testing.T) {
	drivers, facts := clouds.All(), cloudlist.All()
	if len(drivers) != len(facts) {
		t.Fatalf("%d drivers (%v) but %d clouds' facts (%v): add the cloud to both lists", len(drivers), clouds.IDs(), len(facts), cloudlist.IDs())
	}
	for i, d := range drivers {
		f := facts[i]
		if d.ID() != f.ID() {
			t.Errorf("driver %d is %q, facts %d are %q: the lists must name the clouds in one order", i, d.ID(), i, f.ID())
		}
		if d.Env() != f.Env() || d.ProviderConfig() != f.ProviderConfig() || d.Kinds() != f.Kinds() {
			t.Errorf("the driver of %q answers other facts than cloudlist's: embed the cloud's own facts", d.ID())
		}
	}
}
