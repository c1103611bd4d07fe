package upgrade

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"google.golang.org/protobuf/proto"
)

// offered holds the catalogues read from the clouds, once per process for each cloud, API URL
// and token: a fleet of a hundred manifests makes one call per cloud, not a hundred.
var offered = struct {
	sync.Mutex
	found map[string]offeredResult
}{found: map[string]offeredResult{}}

type offeredResult struct {
	catalogue cost.Catalogue
	err       error
}

// Offered is what cloud (cost.DigitalOcean or cost.Civo) offers now, read from its API at base
// (the cloud's own when "") with token: DigitalOcean's versions and sizes, Civo's versions. A
// failed read is remembered as well, so that it is said once.
func Offered(ctx context.Context, cloud, base, token string) (cost.Catalogue, error) {
	// Keyed by where the catalogue comes from; a token counts only as its digest.
	digest := sha256.Sum256([]byte(token))
	key := fmt.Sprintf("%s %x %s", cloud, digest[:8], base)
	offered.Lock()
	defer offered.Unlock()
	if r, ok := offered.found[key]; ok {
		return r.catalogue, r.err
	}
	var r offeredResult
	switch cloud {
	case cost.DigitalOcean:
		r.catalogue, r.err = NewDigitalOcean(base, token).Catalogue(ctx)
	case cost.Civo:
		r.catalogue, r.err = NewCivo(base, token, "").Catalogue(ctx)
	default:
		r.err = fmt.Errorf("no catalogue of %q", cloud)
	}
	offered.found[key] = r
	return r.catalogue, r.err
}

// CloudAPI is where input's cloud is asked what it offers: the cloud, and the API URL and token
// its provider config or the environment give (provider.Resolve decides, as for the deploy
// itself). token is "" when there is none, or when the manifest is of no cloud.
func CloudAPI(input proto.Message) (cloud, base, token string) {
	p, ownToken, ownURL, ok := stackinput.ProviderConfig(input)
	if !ok {
		return "", "", ""
	}
	cloud = cost.CloudOf(input)
	token, base, err := p.Resolve(ownToken, ownURL)
	if err != nil {
		// The manifest's validation refuses the same provider config; nothing is asked.
		return cloud, "", ""
	}
	return cloud, base, token
}
