package stackinput

import (
	"strings"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
	"google.golang.org/protobuf/proto"
)

// ProviderConfig is the cloud of a stack input (by its message's package) and its provider config's own
// token and API URL, either "" when unset; ok is false for a message of neither cloud.
func ProviderConfig(input proto.Message) (c cloudapi.Cloud, token, apiURL string, ok bool) {
	m := input.ProtoReflect()
	var tokenField, urlField string
	switch name := strings.ToLower(string(m.Descriptor().FullName())); {
	case strings.Contains(name, "digitalocean"):
		c = cloudapi.DigitalOcean
		tokenField, urlField = digitaloceanv1.DigitalOceanProviderConfigFieldApiToken, digitaloceanv1.DigitalOceanProviderConfigFieldApiUrl
	case strings.Contains(name, "civo"):
		c = cloudapi.Civo
		tokenField, urlField = civov1.CivoProviderConfigFieldApiToken, civov1.CivoProviderConfigFieldApiUrl
	default:
		return cloudapi.Cloud{}, "", "", false
	}
	pc := protofield.At(m, kindfield.StackInputProviderConfig)
	return c, protofield.String(pc, tokenField), protofield.String(pc, urlField), true
}
