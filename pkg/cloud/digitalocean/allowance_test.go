package digitalocean_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

// Every answer of DigitalOcean's API says what the token's account has left of its requests an
// hour (RateLimit-Limit, -Remaining, -Reset, as godo reads them): the driver asks it in one
// request, every request of the process hears it (with the account named apart), and past the
// limit the cloud answers 429, which says it too. Civo's answers say nothing: nothing is asked.
func TestTheAccountsHourIsReadFromTheAnswersHeaders(t *testing.T) {
	ctx := context.Background()
	do := fakedo.New(t, "dop_v1_hour")
	if _, ok, err := (digitalocean.Driver{}).Allowance(ctx, do.URL(), "dop_v1_hour"); ok || err != nil {
		t.Fatalf("a cloud whose answers say nothing of the hour: ok %v, %v; want not known, no error", ok, err)
	}
	// A small limit, and the hour's oldest request stopping to count 30 s from now.
	do.CountHourly(100)
	do.LeaveHourly("dop_v1_hour", 3, 30*time.Second)
	var heard []int
	stop := cloudapi.Observe(func(_ context.Context, r cloudapi.Request) {
		if r.Allowance != nil && r.Cloud == "digitalocean" && r.Account == cloudapi.AccountOf("dop_v1_hour") {
			heard = append(heard, r.Allowance.Remaining)
		}
	})
	defer stop()
	before := time.Now()
	do.Reset()
	for _, want := range []int{2, 1, 0, 0} {
		a, ok, err := (digitalocean.Driver{}).Allowance(ctx, do.URL(), "dop_v1_hour")
		if err != nil || !ok || a.Limit != 100 || a.Remaining != want {
			t.Fatalf("the account's hour = %+v, %v, %v; want %d of 100 left", a, ok, err, want)
		}
		if d := a.Reset.Sub(before); d < 28*time.Second || d > 32*time.Second {
			t.Errorf("the hour's oldest request stops counting %v from now, want 30 s", d)
		}
	}
	if !slices.Equal(heard, []int{2, 1, 0, 0}) {
		t.Errorf("the process heard %v left, want 2, 1, 0, 0", heard)
	}
	// Four questions, four requests: the last refused, and not asked again.
	var statuses []int
	for _, r := range do.Requests("") {
		statuses = append(statuses, r.Status)
	}
	if !slices.Equal(statuses, []int{200, 200, 200, http.StatusTooManyRequests}) {
		t.Errorf("the cloud answered %v, want three 200s and one 429", statuses)
	}
	if _, ok, err := (civo.Driver{}).Allowance(ctx, "http://127.0.0.1:1", "civo-token"); ok || err != nil {
		t.Errorf("Civo's hour: ok %v, %v; want not known and nothing asked", ok, err)
	}
}
