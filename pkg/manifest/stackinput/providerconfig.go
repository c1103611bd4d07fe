package stackinput

import (
	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
	"google.golang.org/protobuf/proto"
)

// Cloud is what the cloud a stack input deploys to is: the one whose provider config its
// providerConfig field holds (cloudlist.OfInput); false for a message without one, or with a
// provider config no cloud's facts name.
func Cloud(input proto.Message) (cloudfacts.Cloud, bool) {
	return cloudlist.OfInput(input)
}

// ProviderConfig is the cloud of a stack input (by its provider config, see Cloud) and its
// provider config's own token and API URL, either "" when unset; ok is false for a message of no
// cloud a driver knows.
func ProviderConfig(input proto.Message) (c cloudfacts.Env, token, apiURL string, ok bool) {
	d, ok := Cloud(input)
	if !ok {
		return cloudfacts.Env{}, "", "", false
	}
	fields := d.ProviderConfig()
	pc := protofield.At(input.ProtoReflect(), kindfield.StackInputProviderConfig)
	return d.Env(), protofield.String(pc, fields.Token), protofield.String(pc, fields.URL), true
}
