package discover

import (
	"net/http"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

// DigitalOcean allows 250 requests a minute per token (and 5,000 an hour); the pacer stays under
// it with room for whatever else runs with the same token: in any minute at most the burst and
// a minute's refill, 245.
const (
	DefaultPerMinute = 225
	// DefaultBurst requests go out at once before pacing starts: a small account is read at
	// full speed, a large one never exceeds the per-minute limit.
	DefaultBurst = 20
	// maxRetryAfter bounds how long one 429 makes us wait, whatever the server says.
	maxRetryAfter = 2 * time.Minute
	maxAttempts   = 5
)

// transport is how discover reads either cloud (pkg/cloud/digitalocean, pkg/cloud/civo): paced,
// answering 429 by waiting as Retry-After says and asking a 5xx or a request that got no answer
// again a few times. Its errors name the path and status, never the token or the base URL
// (cloudapi's rule).
func transport(hc *http.Client, p *cloudapi.Pacer) cloudapi.Options {
	return cloudapi.Options{
		HTTP:  hc,
		Retry: cloudapi.Patient(maxAttempts-1, maxRetryAfter),
		Pace:  p,
	}
}

// newPacer is the pace of one discover: perMinute (DefaultPerMinute when not set) after burst.
func newPacer(perMinute, burst int) *cloudapi.Pacer {
	if perMinute <= 0 {
		perMinute = DefaultPerMinute
	}
	return cloudapi.NewPacer(perMinute, burst)
}
