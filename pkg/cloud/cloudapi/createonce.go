package cloudapi

import (
	"context"
	"net/http"
	"time"

	"github.com/pkg/errors"
)

// CreateAttempts is how many times CreateOnce sends a create at most; CreateWait is its wait
// before the second (doubled before each further one). A variable, so that tests need not wait.
const CreateAttempts = 3

var CreateWait = 500 * time.Millisecond

// CreateOnce sends a create through send (a client that sends it once, never asking again by
// itself), never blindly again. A cloud can carry a create out and still answer 5xx, or the
// answer can be lost: sending it again then makes a second thing, billed until someone finds it.
// So after such an unclear answer (Unclear) find looks for what this create made (by the mark
// and the name it gave it) and, only when the cloud does not have it, the create is sent again.
// A clear refusal (a 4xx, the rate limit aside) is returned at once.
//
// It is for a caller that must have the thing now and has no user to run it again (the Karpenter
// provider's pools). A pool rotation sends its create once and stops on a failure instead: it
// records its phase, and the user's next up finds the surge pool by its mark.
func CreateOnce[T any](ctx context.Context, send func(context.Context) (T, error),
	find func(context.Context) (T, bool, error)) (T, error) {
	var none T
	wait := CreateWait
	for attempt := 1; ; attempt++ {
		made, err := send(ctx)
		if err == nil {
			return made, nil
		}
		if !Unclear(err) || attempt >= CreateAttempts || ctx.Err() != nil {
			return none, err
		}
		if serr := Sleep(ctx, wait); serr != nil {
			return none, err
		}
		wait *= 2
		found, ok, ferr := find(ctx)
		if ferr != nil {
			return none, errors.Wrapf(err, "and looking for what it made after it failed too (%v)", ferr)
		}
		if ok {
			return found, nil
		}
	}
}

// Unclear says a create's error leaves open whether the cloud carried it out: no answer, or a
// server error. A 429 did nothing either, yet is worth asking again after the wait.
func Unclear(err error) bool {
	s := StatusOf(err)
	return s == 0 || s == http.StatusTooManyRequests || s >= 500
}
