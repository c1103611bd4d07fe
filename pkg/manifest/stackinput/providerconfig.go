package stackinput

import (
	"strings"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
	"google.golang.org/protobuf/proto"
)

// ProviderConfig is the cloud of a stack input (by its message's package) and its provider config's own
// token and API URL, either "" when unset; ok is false for a message of neither cloud.
func ProviderConfig(input proto.Message) (c cloudapi.Cloud, token, apiURL string, ok bool) {
	m := input.ProtoReflect()
	switch name := strings.ToLower(string(m.Descriptor().FullName())); {
	case strings.Contains(name, "digitalocean"):
		c = cloudapi.DigitalOcean
	case strings.Contains(name, "civo"):
		c = cloudapi.Civo
	default:
		return cloudapi.Cloud{}, "", "", false
	}
	pc := protofield.Message(m, "provider_config")
	token, apiURL = protofield.String(pc, "apiToken"), protofield.String(pc, "apiUrl")
	return c, token, apiURL, true
}
