package clouds

import (
	"context"
	"net/http"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/pkg/errors"
)

// createAttempts is how many times a pool create is sent at most; createWait is the wait before
// the second (doubled before each further one).
const createAttempts = 3

var createWait = 500 * time.Millisecond

// retryRule is the retry of the clouds' reads, resizes and deletes: asking them again does no
// harm (a resize sets an absolute count). Creates are never asked again by it: see createPool.
var retryRule = cloudapi.Backoff(3, 500*time.Millisecond)

// createPool sends a pool create through send, once per attempt, never blindly again. A cloud can
// carry a create out and still answer 5xx, or the answer can be lost: sending it again then makes
// a second pool whose nodes no NodeClaim names, billed until garbage collection ends them. So
// after such an unclear answer find looks for the pool (by the mark and the name this create
// gave it) and, only when the cloud does not have it, the create is sent again. A clear refusal
// (a 4xx, the rate limit aside) is returned at once.
//
// The main module's pool rotation guards its creates too, differently, and the two are kept
// apart on purpose. Its godo client sends a POST once (postOnce in pkg/cloud/digitalocean), the
// same as this package's once clients (cloudapi.Never); but after a failed create the rotation
// records its phase and stops, and the user's next up finds the surge pool by its mark
// (pkg/change/rotation's createSurge). Karpenter has no user to run it again and asks for a node
// now, so the look-and-send-again loop is here only. One loop for both would change how a
// rotation stops.
func createPool(ctx context.Context, send func(context.Context) (Pool, error),
	find func(context.Context) (Pool, bool, error)) (Pool, error) {
	wait := createWait
	for attempt := 1; ; attempt++ {
		p, err := send(ctx)
		if err == nil {
			return p, nil
		}
		if !unclear(err) || attempt >= createAttempts || ctx.Err() != nil {
			return Pool{}, err
		}
		if serr := cloudapi.Sleep(ctx, wait); serr != nil {
			return Pool{}, err
		}
		wait *= 2
		found, ok, ferr := find(ctx)
		if ferr != nil {
			return Pool{}, errors.Wrapf(err, "and looking for the pool after it failed too (%v)", ferr)
		}
		if ok {
			return found, nil
		}
	}
}

// unclear says a create's error leaves open whether the cloud made the pool: no answer, or a
// server error. A 429 did nothing either, yet is worth asking again after the wait.
func unclear(err error) bool {
	s := cloudapi.StatusOf(err)
	return s == 0 || s == http.StatusTooManyRequests || s >= 500
}

// findPool is the cluster's pool carrying mark and named name, the one a create made.
func findPool(ctx context.Context, cloud Cloud, c Cluster, mark, name string) (Pool, bool, error) {
	pools, err := cloud.Pools(ctx, c)
	if err != nil {
		return Pool{}, false, err
	}
	for _, p := range pools {
		if p.Mark == mark && p.Name == name {
			return p, true, nil
		}
	}
	return Pool{}, false, nil
}
