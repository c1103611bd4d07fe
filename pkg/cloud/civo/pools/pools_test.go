package pools_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/civo/civogo"
	corev1 "k8s.io/api/core/v1"

	"github.com/clusterplane/clusterplane/pkg/cloud/civo/pools"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
)

const (
	// token is a sentinel: no error text may ever contain it.
	token   = "SENTINEL-TOKEN-5f0c1a9e"
	region  = "LON1"
	cluster = "c0ffee00-cluster"
)

func newClient(t *testing.T, f *fakecivo.Civo, opts ...pools.Option) *pools.Client {
	t.Helper()
	opts = append([]pools.Option{
		pools.WithPollInterval(time.Millisecond),
		pools.WithWaitTimeout(2 * time.Second),
		pools.WithRetry(cloudapi.Backoff(3, time.Millisecond)),
	}, opts...)
	c, err := pools.New(token, f.URL(), region, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func workers() pools.Spec {
	return pools.Spec{
		ClusterID: cluster,
		ID:        "workers",
		Size:      "g4s.kube.medium",
		Count:     3,
		Labels:    map[string]string{"team": "platform"},
		Taints:    []pools.Taint{{Key: "dedicated", Value: "gpu", Effect: "NoSchedule"}},
	}
}

func seedWorkers(f *fakecivo.Civo) {
	f.Seed(cluster, civogo.KubernetesPool{
		ID: "workers", Size: "g4s.kube.medium", Count: 3,
		Labels: map[string]string{"team": "platform"},
		Taints: []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: "NoSchedule"}},
	})
}

func assertNoToken(t *testing.T, err error) {
	t.Helper()
	for _, text := range []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
		if strings.Contains(text, token) {
			t.Fatalf("error text contains the API token: %s", text)
		}
	}
}

func assertNamesPoolAndCluster(t *testing.T, err error, pool string) {
	t.Helper()
	if !strings.Contains(err.Error(), fmt.Sprintf("%q", pool)) || !strings.Contains(err.Error(), fmt.Sprintf("%q", cluster)) {
		t.Fatalf("error does not name pool %q and cluster %q: %v", pool, cluster, err)
	}
}

func TestCreateWaitsForRunningNodesAndGetReadsThePoolBack(t *testing.T) {
	f := fakecivo.New(t, token, region, cluster)
	f.BuildPolls = 3
	c := newClient(t, f)
	ctx := context.Background()

	st, err := c.Create(ctx, workers())
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if st.Count != 3 || len(st.InstanceNames) != 3 || len(st.Instances) != 3 {
		t.Fatalf("created state has count %d, %d names, %d instances; want 3 of each", st.Count, len(st.InstanceNames), len(st.Instances))
	}
	for _, in := range st.Instances {
		if in.Status != pools.ReadyStatus {
			t.Fatalf("Create returned before instance %s was running: %s", in.Name, in.Status)
		}
	}
	if gets := len(f.Requests("GET")); gets < 3 {
		t.Fatalf("Create polled %d times; the nodes were building for 3 polls", gets)
	}

	posts := f.Requests("POST")
	if len(posts) != 1 {
		t.Fatalf("want one POST, got %d", len(posts))
	}
	want := `{"region":"LON1","id":"workers","count":3,"size":"g4s.kube.medium","labels":{"team":"platform"},"taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}]}`
	if got := posts[0].Body; got != want {
		t.Fatalf("POST body\n got %s\nwant %s", got, want)
	}
	if posts[0].Path != "/v2/kubernetes/clusters/"+cluster+"/pools" {
		t.Fatalf("POST path %s", posts[0].Path)
	}

	got, found, err := c.Get(ctx, cluster, "workers")
	if err != nil || !found {
		t.Fatalf("Get: found=%v err=%v", found, err)
	}
	if got.ClusterID != cluster || got.ID != "workers" || got.Region != region || got.Size != "g4s.kube.medium" || got.Count != 3 {
		t.Fatalf("Get returned %+v", got)
	}
	if d := pools.Drift(workers(), got); len(d) != 0 {
		t.Fatalf("a freshly created pool drifts in %v", d)
	}
	if got.Labels["kubernetes.civo.com/node-pool"] != "workers" {
		t.Fatalf("State should carry Civo's own labels as Civo reports them: %v", got.Labels)
	}
	if q := f.Requests("GET")[0].Query; q != "region="+region {
		t.Fatalf("GET query %q, want region=%s", q, region)
	}
}

func TestCreateWithoutTaintsSendsAnEmptyListNotNull(t *testing.T) {
	f := fakecivo.New(t, token, region, cluster)
	c := newClient(t, f)
	spec := workers()
	spec.Taints, spec.Labels = nil, nil
	if _, err := c.Create(context.Background(), spec); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if body := f.Requests("POST")[0].Body; !strings.Contains(body, `"taints":[]`) || strings.Contains(body, `"labels"`) {
		t.Fatalf("POST body %s", body)
	}
}

func TestUpdateSendsOnlyWhatChanged(t *testing.T) {
	base := workers()
	with := func(change func(*pools.Spec)) pools.Spec {
		s := base
		s.Labels = map[string]string{"team": "platform"}
		s.Taints = slices.Clone(base.Taints)
		change(&s)
		return s
	}
	tests := []struct {
		name      string
		new       pools.Spec
		wantBody  string // "" means no PUT at all
		wantCount int
		wantDrift []string // fields where the live pool differs from base afterwards
	}{
		{
			name:      "scaling 3 to 5 sends only the count",
			new:       with(func(s *pools.Spec) { s.Count = 5 }),
			wantBody:  `{"count":5,"region":"LON1"}`,
			wantCount: 5,
			wantDrift: []string{"count"},
		},
		{
			name:      "scaling 3 to 1 sends only the count",
			new:       with(func(s *pools.Spec) { s.Count = 1 }),
			wantBody:  `{"count":1,"region":"LON1"}`,
			wantCount: 1,
			wantDrift: []string{"count"},
		},
		{
			name:      "relabelling sends the whole new label set",
			new:       with(func(s *pools.Spec) { s.Labels = map[string]string{"team": "data", "tier": "batch"} }),
			wantBody:  `{"labels":{"team":"data","tier":"batch"},"region":"LON1"}`,
			wantCount: 3,
			wantDrift: []string{"labels"},
		},
		{
			name:      "clearing the labels sends an explicit empty labels object",
			new:       with(func(s *pools.Spec) { s.Labels = nil }),
			wantBody:  `{"labels":{},"region":"LON1"}`,
			wantCount: 3,
			wantDrift: []string{"labels"},
		},
		{
			name:      "clearing the taints sends an explicit empty taints list",
			new:       with(func(s *pools.Spec) { s.Taints = nil }),
			wantBody:  `{"taints":[],"region":"LON1"}`,
			wantCount: 3,
			wantDrift: []string{"taints"},
		},
		{
			name: "changing a taint sends the whole new taint list",
			new: with(func(s *pools.Spec) {
				s.Taints = []pools.Taint{{Key: "dedicated", Value: "cpu", Effect: "NoExecute"}}
			}),
			wantBody:  `{"taints":[{"key":"dedicated","value":"cpu","effect":"NoExecute"}],"region":"LON1"}`,
			wantCount: 3,
			wantDrift: []string{"taints"},
		},
		{
			name:      "scaling and clearing labels and taints at once sends all three",
			new:       with(func(s *pools.Spec) { s.Count, s.Labels, s.Taints = 4, map[string]string{}, []pools.Taint{} }),
			wantBody:  `{"count":4,"labels":{},"taints":[],"region":"LON1"}`,
			wantCount: 4,
			wantDrift: []string{"count", "labels", "taints"},
		},
		{
			name:      "an empty region means the client's region, so nothing changed and nothing is sent",
			new:       with(func(s *pools.Spec) { s.Region = "" }),
			wantBody:  "",
			wantCount: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fakecivo.New(t, token, region, cluster)
			f.BuildPolls = 2
			seedWorkers(f)
			c := newClient(t, f)

			st, err := c.Update(context.Background(), base, tt.new)
			if err != nil {
				t.Fatalf("Update: %v", err)
			}
			puts := f.Requests("PUT")
			if tt.wantBody == "" {
				if len(puts) != 0 {
					t.Fatalf("want no PUT, got %s", puts[0].Body)
				}
			} else {
				if len(puts) != 1 {
					t.Fatalf("want one PUT, got %d", len(puts))
				}
				if puts[0].Body != tt.wantBody {
					t.Fatalf("PUT body\n got %s\nwant %s", puts[0].Body, tt.wantBody)
				}
				if puts[0].Path != "/v2/kubernetes/clusters/"+cluster+"/pools/workers" {
					t.Fatalf("PUT path %s", puts[0].Path)
				}
			}
			if st.Count != tt.wantCount || len(st.Instances) != tt.wantCount {
				t.Fatalf("state after update has count %d and %d instances, want %d", st.Count, len(st.Instances), tt.wantCount)
			}
			if d := pools.Drift(tt.new, st); len(d) != 0 {
				t.Fatalf("after the update the pool still drifts from the new spec in %v", d)
			}
			if d := pools.Drift(base, st); !slices.Equal(d, tt.wantDrift) {
				t.Fatalf("drift from the old spec is %v, want %v", d, tt.wantDrift)
			}
		})
	}
}

func TestScaling3To5To2SendsEachCountAndWaitsForIt(t *testing.T) {
	f := fakecivo.New(t, token, region, cluster)
	f.BuildPolls = 2
	seedWorkers(f)
	c := newClient(t, f)
	old := workers()
	for _, n := range []int{5, 2} {
		f.Reset()
		next := old
		next.Count = n
		st, err := c.Update(context.Background(), old, next)
		if err != nil {
			t.Fatalf("scaling to %d: %v", n, err)
		}
		if puts := f.Requests("PUT"); len(puts) != 1 || puts[0].Body != fmt.Sprintf(`{"count":%d,"region":"LON1"}`, n) {
			t.Fatalf("scaling to %d sent %v", n, puts)
		}
		if st.Count != n || len(st.Instances) != n {
			t.Fatalf("scaling to %d returned count %d with %d instances", n, st.Count, len(st.Instances))
		}
		for _, in := range st.Instances {
			if in.Status != pools.ReadyStatus {
				t.Fatalf("scaling to %d returned before %s was running", n, in.Name)
			}
		}
		old = next
	}
}

func TestUpdateRefusesChangesCivoCannotMakeInPlace(t *testing.T) {
	tests := []struct {
		name   string
		change func(*pools.Spec)
		want   string
	}{
		{"a new size needs a new pool", func(s *pools.Spec) { s.Size = "g4s.kube.large" }, "size"},
		{"a public IP switch needs a new pool", func(s *pools.Spec) { s.PublicIP = true }, "public_ip"},
		{"another region is not this client's", func(s *pools.Spec) { s.Region = "FRA1" }, "region"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fakecivo.New(t, token, region, cluster)
			seedWorkers(f)
			c := newClient(t, f)
			next := workers()
			tt.change(&next)
			next.Count = 4
			_, err := c.Update(context.Background(), workers(), next)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("want an error about %s, got %v", tt.want, err)
			}
			assertNamesPoolAndCluster(t, err, "workers")
			if n := len(f.Requests("")); n != 0 {
				t.Fatalf("a refused update still sent %d requests", n)
			}
		})
	}
}

func TestCivosOwnLabelsAreNotDrift(t *testing.T) {
	spec := workers()
	live := func(change func(*pools.State)) pools.State {
		s := pools.State{Spec: workers()}
		s.Labels = map[string]string{"team": "platform", "kubernetes.civo.com/node-pool": "workers", "kubernetes.civo.com/civo-node-size": "g4s.kube.medium"}
		change(&s)
		return s
	}
	tests := []struct {
		name string
		spec pools.Spec
		live pools.State
		want []string
	}{
		{"labels Civo adds under kubernetes.civo.com/ are not drift", spec, live(func(*pools.State) {}), nil},
		{"a user label that Civo lost is drift", spec, live(func(s *pools.State) { delete(s.Labels, "team") }), []string{"labels"}},
		{"a user label changed on Civo is drift", spec, live(func(s *pools.State) { s.Labels["team"] = "data" }), []string{"labels"}},
		{"no labels in the spec and only Civo's on the pool is no drift",
			pools.Spec{Count: 3, Size: "g4s.kube.medium", Taints: spec.Taints},
			live(func(s *pools.State) { delete(s.Labels, "team") }), nil},
		{"the same taints in another order are not drift",
			pools.Spec{Count: 3, Size: "g4s.kube.medium", Labels: spec.Labels, Taints: []pools.Taint{{"a", "1", "NoSchedule"}, {"b", "2", "NoExecute"}}},
			live(func(s *pools.State) {
				s.Taints = []pools.Taint{{"b", "2", "NoExecute"}, {"a", "1", "NoSchedule"}}
			}), nil},
		{"nil and empty taints are the same", func() pools.Spec { s := workers(); s.Taints = nil; return s }(),
			live(func(s *pools.State) { s.Taints = []pools.Taint{} }), nil},
		{"a count changed on Civo is drift", spec, live(func(s *pools.State) { s.Count = 4 }), []string{"count"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pools.Drift(tt.spec, tt.live); !slices.Equal(got, tt.want) {
				t.Fatalf("Drift = %v, want %v", got, tt.want)
			}
		})
	}

	t.Run("Refresh keeps the user's labels and drops Civo's", func(t *testing.T) {
		got := pools.Refresh(live(func(*pools.State) {}))
		if len(got.Labels) != 1 || got.Labels["team"] != "platform" {
			t.Fatalf("Refresh labels = %v", got.Labels)
		}
		if got = pools.Refresh(live(func(s *pools.State) { delete(s.Labels, "team") })); got.Labels != nil {
			t.Fatalf("Refresh of only Civo's labels = %v, want nil", got.Labels)
		}
	})
}

func TestValidateRefusesWhatCouldNotConverge(t *testing.T) {
	tests := []struct {
		name   string
		change func(*pools.Spec)
		want   string
	}{
		{"a label under kubernetes.civo.com/ is Civo's", func(s *pools.Spec) { s.Labels["kubernetes.civo.com/x"] = "y" }, "Civo manages itself"},
		{"zero nodes is not a pool", func(s *pools.Spec) { s.Count = 0 }, "at least 1"},
		{"an unknown taint effect is refused", func(s *pools.Spec) { s.Taints[0].Effect = "Sometimes" }, "effect"},
		{"a pool needs an id", func(s *pools.Spec) { s.ID = "" }, "pool id is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := workers()
			s.Labels = map[string]string{"team": "platform"}
			s.Taints = slices.Clone(s.Taints)
			tt.change(&s)
			if err := pools.Validate(s); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("want an error containing %q, got %v", tt.want, err)
			}
		})
	}
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name        string
		method      string
		status      int
		times       int
		wantErr     bool
		wantStatus  int
		wantSent    int // requests with that method
		wantMessage string
	}{
		{name: "a 429 then a 200 is retried and succeeds", method: "GET", status: 429, times: 1, wantSent: 2},
		{name: "two 503s then a 200 are retried and succeed", method: "GET", status: 503, times: 2, wantSent: 3},
		{name: "a 500 on every attempt gives up after the attempt limit", method: "GET", status: 500, times: 100,
			wantErr: true, wantStatus: 500, wantSent: 4, wantMessage: "gave up after 4 attempts"},
		{name: "a 400 is not retried", method: "GET", status: 400, times: 100, wantErr: true, wantStatus: 400, wantSent: 1},
		{name: "a 403 is not retried", method: "GET", status: 403, times: 100, wantErr: true, wantStatus: 403, wantSent: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fakecivo.New(t, token, region, cluster)
			seedWorkers(f)
			f.Fail(tt.method, tt.status, tt.times)
			c := newClient(t, f)
			st, found, err := c.Get(context.Background(), cluster, "workers")
			if got := len(f.Requests(tt.method)); got != tt.wantSent {
				t.Fatalf("sent %d requests, want %d", got, tt.wantSent)
			}
			if !tt.wantErr {
				if err != nil || !found || st.Count != 3 {
					t.Fatalf("Get: found=%v count=%d err=%v", found, st.Count, err)
				}
				return
			}
			if err == nil {
				t.Fatal("want an error")
			}
			assertNamesPoolAndCluster(t, err, "workers")
			if got := cloudapi.StatusOf(err); got != tt.wantStatus {
				t.Fatalf("want an error of status %d, got %d: %v", tt.wantStatus, got, err)
			}
			if !strings.Contains(err.Error(), tt.wantMessage) {
				t.Fatalf("error %q does not say %q", err, tt.wantMessage)
			}
		})
	}
}

func TestACreateAnswered500IsNotSentAgainSinceCivoMayHaveMadeThePool(t *testing.T) {
	f := fakecivo.New(t, token, region, cluster)
	f.Fail("POST", 500, 100)
	c := newClient(t, f)
	_, err := c.Create(context.Background(), workers())
	if err == nil {
		t.Fatal("want an error")
	}
	assertNamesPoolAndCluster(t, err, "workers")
	if n := len(f.Requests("POST")); n != 1 {
		t.Fatalf("sent %d POSTs, want 1", n)
	}
	if !strings.Contains(err.Error(), "create") || !strings.Contains(err.Error(), "HTTP 500") {
		t.Fatalf("error %q should name the operation and the status", err)
	}
}

func TestAThrottledCreateIsSentAgain(t *testing.T) {
	f := fakecivo.New(t, token, region, cluster)
	f.Fail("POST", 429, 1)
	c := newClient(t, f)
	if _, err := c.Create(context.Background(), workers()); err != nil {
		t.Fatalf("create after one 429: %v", err)
	}
	if n := len(f.Requests("POST")); n != 2 {
		t.Fatalf("sent %d POSTs, want 2", n)
	}
}

func TestRetriesStopWhenTheContextEnds(t *testing.T) {
	f := fakecivo.New(t, token, region, cluster)
	seedWorkers(f)
	f.Fail("GET", 503, 100)
	c := newClient(t, f, pools.WithRetry(cloudapi.Backoff(100, time.Hour)))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err := c.Get(ctx, cluster, "workers")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the context's error, got %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("the backoff did not honour the context")
	}
	assertNamesPoolAndCluster(t, err, "workers")
}

func TestAMissingPoolIsNotFoundRatherThanAnError(t *testing.T) {
	f := fakecivo.New(t, token, region, cluster)
	c := newClient(t, f)
	_, found, err := c.Get(context.Background(), cluster, "nope")
	if err != nil || found {
		t.Fatalf("Get of a missing pool: found=%v err=%v, want not found and no error", found, err)
	}
	if n := len(f.Requests("GET")); n != 1 {
		t.Fatalf("a 404 was sent %d times; it must not be retried", n)
	}
}

func TestDeleteRemovesThePoolAndToleratesOneAlreadyGone(t *testing.T) {
	f := fakecivo.New(t, token, region, cluster)
	seedWorkers(f)
	c := newClient(t, f)
	if err := c.Delete(context.Background(), cluster, "workers"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, found, _ := c.Get(context.Background(), cluster, "workers"); found {
		t.Fatal("the pool is still there")
	}
	if d := f.Requests("DELETE"); len(d) != 1 || d[0].Query != "region="+region {
		t.Fatalf("DELETE requests %v", d)
	}
	if err := c.Delete(context.Background(), cluster, "workers"); err != nil {
		t.Fatalf("deleting a pool that is already gone: %v", err)
	}
}

func TestTheWaitTimesOutWithAnErrorNamingPoolAndCluster(t *testing.T) {
	tests := []struct {
		name string
		run  func(*pools.Client) error
	}{
		{"a create whose nodes never run", func(c *pools.Client) error {
			_, err := c.Create(context.Background(), workers())
			return err
		}},
		{"a scale whose new nodes never run", func(c *pools.Client) error {
			next := workers()
			next.Count = 5
			_, err := c.Update(context.Background(), workers(), next)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fakecivo.New(t, token, region, cluster)
			if strings.Contains(tt.name, "scale") {
				seedWorkers(f)
			}
			f.NeverReady = true
			c := newClient(t, f, pools.WithPollInterval(2*time.Millisecond), pools.WithWaitTimeout(40*time.Millisecond))
			start := time.Now()
			err := tt.run(c)
			if !errors.Is(err, pools.ErrWaitTimeout) {
				t.Fatalf("want ErrWaitTimeout, got %v", err)
			}
			if time.Since(start) > 5*time.Second {
				t.Fatal("the wait ran far past its timeout")
			}
			assertNamesPoolAndCluster(t, err, "workers")
			if !strings.Contains(err.Error(), "instances ACTIVE") {
				t.Fatalf("the timeout error should say what was not ready: %v", err)
			}
			assertNoToken(t, err)
			t.Logf("the error reads: %v", err)
		})
	}
}

func TestTheTokenNeverAppearsInAnyError(t *testing.T) {
	tests := []struct {
		name  string
		setup func(*fakecivo.Civo)
		run   func(*pools.Client) error
	}{
		{"a 500 answer that echoes the Authorization header",
			func(f *fakecivo.Civo) { f.Fail("GET", 500, 100) },
			func(c *pools.Client) error {
				_, _, err := c.Get(context.Background(), cluster, "workers")
				return err
			}},
		{"a 400 answer to a create that echoes the Authorization header",
			func(f *fakecivo.Civo) { f.Fail("POST", 400, 100) },
			func(c *pools.Client) error { _, err := c.Create(context.Background(), workers()); return err }},
		{"a 422 answer to an update that echoes the Authorization header",
			func(f *fakecivo.Civo) { f.Fail("PUT", 422, 100) },
			func(c *pools.Client) error {
				next := workers()
				next.Labels = nil
				_, err := c.Update(context.Background(), workers(), next)
				return err
			}},
		{"a 429 on every delete",
			func(f *fakecivo.Civo) { f.Fail("DELETE", 429, 100) },
			func(c *pools.Client) error { return c.Delete(context.Background(), cluster, "workers") }},
		{"a cluster Civo does not know",
			func(f *fakecivo.Civo) {},
			func(c *pools.Client) error {
				s := workers()
				s.ClusterID = "other"
				_, err := c.Create(context.Background(), s)
				return err
			}},
		{"an invalid spec",
			func(f *fakecivo.Civo) {},
			func(c *pools.Client) error {
				s := workers()
				s.Count = 0
				_, err := c.Create(context.Background(), s)
				return err
			}},
		{"an API that is not listening",
			func(f *fakecivo.Civo) { f.Close() },
			func(c *pools.Client) error {
				_, _, err := c.Get(context.Background(), cluster, "workers")
				return err
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fakecivo.New(t, token, region, cluster)
			f.EchoAuth = true
			seedWorkers(f)
			tt.setup(f)
			err := tt.run(newClient(t, f))
			if err == nil {
				t.Fatal("want an error")
			}
			assertNoToken(t, err)
			t.Logf("the error reads: %v", err)
		})
	}

	t.Run("the fake really echoes the token, so the scrubbing is what keeps it out", func(t *testing.T) {
		f := fakecivo.New(t, token, region, cluster)
		f.EchoAuth = true
		f.Fail("GET", 500, 1)
		cc, err := civogo.NewClientWithURL(token, f.URL(), region)
		if err != nil {
			t.Fatal(err)
		}
		_, err = cc.SendGetRequest("/v2/kubernetes/clusters/" + cluster + "/pools/workers")
		if err == nil || !strings.Contains(err.Error(), token) {
			t.Fatalf("civogo's raw error should carry the echoed token, got %v", err)
		}
	})
}

func TestNewRefusesAnEmptyTokenOrRegion(t *testing.T) {
	for _, tt := range []struct{ name, token, url, region string }{
		{"an empty token", "", "https://api.civo.com", "LON1"},
		{"an empty region", token, "https://api.civo.com", ""},
		{"a relative URL", token, "api.civo.com", "LON1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := pools.New(tt.token, tt.url, tt.region); err == nil {
				t.Fatal("want an error")
			}
		})
	}
}
