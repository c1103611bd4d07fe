package stackinput

import (
	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
	"google.golang.org/protobuf/proto"
)

// Cloud is the driver of the cloud a stack input deploys to: the one whose provider config its
// providerConfig field holds (pkg/cloud/clouds decides, by the config message's full name); false
// for a message without one, or with a provider config no driver knows.
func Cloud(input proto.Message) (cloud.Driver, bool) {
	fd := input.ProtoReflect().Descriptor().Fields().ByJSONName(kindfield.StackInputProviderConfig)
	if fd == nil || fd.Message() == nil {
		return nil, false
	}
	return clouds.ByProviderConfig(fd.Message())
}

// ProviderConfig is the cloud of a stack input (by its provider config, see Cloud) and its
// provider config's own token and API URL, either "" when unset; ok is false for a message of no
// cloud a driver knows.
func ProviderConfig(input proto.Message) (c cloudapi.Cloud, token, apiURL string, ok bool) {
	d, ok := Cloud(input)
	if !ok {
		return cloudapi.Cloud{}, "", "", false
	}
	fields := d.ProviderConfig()
	pc := protofield.At(input.ProtoReflect(), kindfield.StackInputProviderConfig)
	return d.Env(), protofield.String(pc, fields.Token), protofield.String(pc, fields.URL), true
}
