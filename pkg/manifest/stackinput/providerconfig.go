package stackinput

import (
	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
	"google.golang.org/protobuf/proto"
)

// ProviderConfig is the cloud of a stack input (by its provider config, cloudlist.OfInput) and its
// provider config's own token and API URL, either "" when unset; ok is false for a message of no
// cloud a driver knows.
func ProviderConfig(input proto.Message) (c cloudfacts.Env, token, apiURL string, ok bool) {
	d, ok := cloudlist.OfInput(input)
	if !ok {
		return cloudfacts.Env{}, "", "", false
	}
	fields := d.ProviderConfig()
	pc := protofield.At(input.ProtoReflect(), kindfield.StackInputProviderConfig)
	return d.Env(), protofield.String(pc, fields.Token), protofield.String(pc, fields.URL), true
}
