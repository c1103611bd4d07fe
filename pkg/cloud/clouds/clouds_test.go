package clouds_test

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
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
