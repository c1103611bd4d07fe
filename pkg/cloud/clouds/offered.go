package clouds

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloud"
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

// Offered is what the cloud id offers now, read by its driver from its API at base (the cloud's
// own when "") with token. A failed read is remembered as well, so that it is said once; a cloud
// no driver knows is an error naming it.
func Offered(ctx context.Context, id, base, token string) (cost.Catalogue, error) {
	// Keyed by where the catalogue comes from; a token counts only as its digest.
	digest := sha256.Sum256([]byte(token))
	key := fmt.Sprintf("%s %x %s", id, digest[:8], base)
	offered.Lock()
	defer offered.Unlock()
	if r, ok := offered.found[key]; ok {
		return r.catalogue, r.err
	}
	var r offeredResult
	d, err := Get(cloud.ID(id))
	if err != nil {
		r.err = err
	} else {
		r.catalogue, r.err = d.Catalogue(ctx, base, token)
	}
	offered.found[key] = r
	return r.catalogue, r.err
}
