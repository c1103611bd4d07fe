package digitalocean_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

// Every answer of DigitalOcean's API says what the token's account has left of its 5,000 requests
// an hour (RateLimit-Limit, -Remaining, -Reset, as godo reads them): the driver asks it in one
// request, every request of the process hears it, and past the limit the cloud answers 429. Civo's
// answers say nothing: nothing is asked.
func TestTheAccountsHourIsReadFromTheAnswersHeaders(t *testing.T) {
	ctx := context.Background()
	do := fakedo.New(t, "dop_v1_hour")
	if _, ok, err := (digitalocean.Driver{}).Allowance(ctx, do.URL(), "dop_v1_hour"); ok || err != nil {
		t.Fatalf("a cloud whose answers say nothing of the hour: ok %v, %v; want not known, no error", ok, err)
	}
	// A small limit: the oldest of the hour stops counting 36 s from now, not within the test.
	do.CountHourly(100)
	do.LeaveHourly("dop_v1_hour", 3)
	var heard []int
	stop := cloudapi.Observe(func(_ context.Context, r cloudapi.Request) {
		if r.Allowance != nil && r.Cloud == "digitalocean" {
			heard = append(heard, r.Allowance.Remaining)
		}
	})
	defer stop()
	before := time.Now()
	for _, want := range []int{2, 1, 0} {
		a, ok, err := (digitalocean.Driver{}).Allowance(ctx, do.URL(), "dop_v1_hour")
		if err != nil || !ok || a.Limit != 100 || a.Remaining != want {
			t.Fatalf("the account's hour = %+v, %v, %v; want %d of 100 left", a, ok, err, want)
		}
		// The oldest of the hour's requests was sent 59 min 24 s ago.
		if d := a.Reset.Sub(before); d < 34*time.Second || d > 38*time.Second {
			t.Errorf("the hour's oldest request stops counting %v from now, want 36 s", d)
		}
	}
	if len(heard) != 3 || heard[0] != 2 || heard[2] != 0 {
		t.Errorf("the process heard %v left, want 2, 1, 0", heard)
	}
	// None left: the next request is refused, and the answer says so too.
	req, _ := http.NewRequest(http.MethodGet, do.URL()+"/v2/account", nil)
	req.Header.Set("Authorization", "Bearer dop_v1_hour")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("RateLimit-Remaining") != "0" {
		t.Errorf("past the hour's limit: %d with %q left, want 429 with 0", resp.StatusCode, resp.Header.Get("RateLimit-Remaining"))
	}
	if _, ok, err := (civo.Driver{}).Allowance(ctx, "http://127.0.0.1:1", "civo-token"); ok || err != nil {
		t.Errorf("Civo's hour: ok %v, %v; want not known and nothing asked", ok, err)
	}
}
