//go:build e2e

package e2e_test

import (
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

// announced is the estimate a run's pacing line says: "about N requests".
var announced = regexp.MustCompile(`paces its requests to what the account has left: digitalocean: about (\d+) requests`)

// On the real engine and plugins, a fleet whose account has almost nothing left of its requests
// an hour (as DigitalOcean's answers say it, RateLimit-Remaining) is paced to what is left: drift
// and preview of three changed stacks say so, announce no more than twice the requests the
// loopback cloud then receives from the run's stacks, and end by saying what the account has
// left.
// Promise: e2e-paced-to-the-hour-left
func TestARunPacedToTheAccountsHourLeftSendsWhatItAnnounced(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := deployAFleetOfFour(t, e)
	driftThreeOfTheFourInTheCloud(t, e)
	e.do.CountHourly(5000)
	for _, command := range []string{"drift", "preview"} {
		// Three left now, and none coming back for 20 s: the run hears so in its first requests,
		// however slowly it starts.
		e.do.LeaveHourly(doToken, 3, 20*time.Second)
		e.do.Reset()
		r, code := e.clusterplane(command, dir)
		if want := map[string]int{"drift": 3, "preview": 0}[command]; code != want {
			t.Fatalf("%s = %d, want %d: %s", command, code, want, r)
		}
		m := announced.FindStringSubmatch(r.stderr)
		if m == nil {
			t.Fatalf("%s did not say it paces to what the account has left: %s", command, r)
		}
		estimate, _ := strconv.Atoi(m[1])
		// What the run's stacks sent, the plugins' requests included (and any asked again after a
		// 429), but not clusterplane's own before the pacer was made (the check of what the cloud
		// offers, the fleet scan's list) or after the stacks ended (the prices, what is left).
		sent, refused := 0, 0
		for _, req := range e.do.Requests("") {
			if req.Status == http.StatusTooManyRequests {
				refused++
			}
			own := req.UserAgent == cloudapi.UserAgent && req.Method == http.MethodGet &&
				slices.Contains([]string{"/v2/kubernetes/options", "/v2/kubernetes/clusters", "/v2/sizes", "/v2/account"}, req.Path)
			if !own {
				sent++
			}
		}
		t.Logf("%s announced %d requests and sent %d (%d refused 429):\n%s", command, estimate, sent, refused, r.stderr)
		if estimate > 2*sent || sent == 0 {
			t.Errorf("%s announced about %d requests and then sent %d: want at most twice what it sends", command, estimate, sent)
		}
		if !strings.Contains(r.stderr, "digitalocean: the account had ") || !strings.Contains(r.stderr, "of its 5000 requests an hour left when the run's stacks began, and has ") {
			t.Errorf("%s did not end saying what the account has left: %s", command, r)
		}
	}
}
