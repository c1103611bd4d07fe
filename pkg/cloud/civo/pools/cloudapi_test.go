package pools_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/civo/pools"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
)

// observed records the requests cloudapi's observers are told of for cluster, as "METHOD status".
func observed(t *testing.T) func() []string {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	stop := cloudapi.Observe(func(_ context.Context, r cloudapi.Request) {
		if r.Cloud != "civo" || !strings.Contains(r.Path, cluster) {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, fmt.Sprintf("%s %d", r.Method, r.Status))
	})
	t.Cleanup(stop)
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// The pool client sends through cloudapi: cloudapi's rule asks a read again and its observers
// count each attempt, while a create Civo may have carried out is sent once, whatever the rule.
// Promise: cloud-client-never-resends-an-unclear-create
func TestPoolRequestsAreAskedAgainAndCountedByCloudapi(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rule     cloudapi.Retry
		fault    fakecloud.Fault
		do       func(*pools.Client) error
		wantErr  bool
		wantSent []string // as the observers saw them
		wantPool int      // pools named workers the cloud holds after
	}{
		{
			name:  "a read answered 503 is asked again by the rule and both attempts are observed",
			rule:  cloudapi.Backoff(3, time.Millisecond),
			fault: fakecloud.Fault{Method: "GET", Status: 503, Times: 1},
			do: func(c *pools.Client) error {
				_, _, err := c.Get(context.Background(), cluster, "workers")
				return err
			},
			wantSent: []string{"GET 503", "GET 200"},
			wantPool: 1,
		},
		{
			name:  "a create Civo carried out yet answered 503 is sent once, though the rule asks 5xx again",
			rule:  cloudapi.Patient(4, time.Millisecond),
			fault: fakecloud.Fault{Method: "POST", Status: 503, Times: 1, Commit: true},
			do: func(c *pools.Client) error {
				return c.Post(context.Background(), workers())
			},
			wantErr:  true,
			wantSent: []string{"POST 503"},
			wantPool: 1,
		},
		{
			name:  "a create answered 429 is asked again by the rule",
			rule:  cloudapi.Backoff(3, time.Millisecond),
			fault: fakecloud.Fault{Method: "POST", Status: 429, Times: 1},
			do: func(c *pools.Client) error {
				return c.Post(context.Background(), workers())
			},
			wantSent: []string{"POST 429", "POST 200"},
			wantPool: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fakecivo.New(t, token, region, cluster)
			if tc.fault.Method == "GET" {
				seedWorkers(f)
			}
			f.Inject(tc.fault)
			seen := observed(t)
			c := newClient(t, f, pools.WithRetry(tc.rule))
			err := tc.do(c)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want one: %t", err, tc.wantErr)
			}
			if got := seen(); !slices.Equal(got, tc.wantSent) {
				t.Errorf("cloudapi's observers saw %q, want %q", got, tc.wantSent)
			}
			if got := len(f.Requests(tc.fault.Method)); got != len(tc.wantSent) || c.Requests() != got {
				t.Errorf("Civo got %d, the client counted %d, want %d", got, c.Requests(), len(tc.wantSent))
			}
			n := 0
			if _, ok := f.Pool(cluster, "workers"); ok {
				n = 1
			}
			if n != tc.wantPool {
				t.Errorf("Civo holds %d pools named workers, want %d", n, tc.wantPool)
			}
		})
	}
}

// A pool client given a caller's cloudapi client sends through it: one rule and one count for the
// caller's requests and the pools'.
func TestAPoolClientWithAnAPISendsThroughItsRuleAndCount(t *testing.T) {
	f := fakecivo.New(t, token, region, cluster)
	seedWorkers(f)
	f.Fail("GET", 503, 1)
	api := cloudapi.New(f.URL(), "bearer "+token, cloudapi.Options{Retry: cloudapi.Backoff(1, time.Millisecond), Cloud: "civo"})
	c, err := pools.New(token, f.URL(), region, pools.WithAPI(api), pools.WithRetry(cloudapi.Never))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Get(context.Background(), cluster, "workers"); err != nil {
		t.Fatalf("the read was not asked again by the shared client's rule: %v", err)
	}
	if api.Requests() != 2 || c.Requests() != 2 {
		t.Errorf("the shared client counted %d, the pool client %d; want 2 each", api.Requests(), c.Requests())
	}
}
