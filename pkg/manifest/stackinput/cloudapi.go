package stackinput

import (
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
	"google.golang.org/protobuf/proto"
)

// CloudAPI is where input's cloud is asked what it offers or holds: the cloud, and the API URL and
// token its provider config or the environment give (cloudapi's Resolve decides, as for the
// deploy itself). token is "" when there is none, or when the manifest is of no cloud.
func CloudAPI(input proto.Message) (cloud, base, token string) {
	d, ok := cloudlist.OfInput(input)
	if !ok {
		return "", "", ""
	}
	p, ownToken, ownURL, _ := ProviderConfig(input)
	token, base, err := p.Resolve(ownToken, ownURL)
	if err != nil {
		// The manifest's validation refuses the same provider config; nothing is asked.
		return string(d.ID()), "", ""
	}
	return string(d.ID()), base, token
}
