package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/pipeline"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/manifest/files"
	"github.com/clusterplane/clusterplane/pkg/serve"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/body"
	"github.com/clusterplane/clusterplane/pkg/serve/reconcile"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// service is one replica on a fresh database, its stacks on the fake engine, with a token of
// every role.
type service struct {
	t       *testing.T
	url     string
	backend *deploytest.Backend
	tokens  map[auth.Role]string
}

// onEachDatabase runs f as a subtest on each database the store keeps its data in, with a
// replica of that many workers on a fresh one: an SQLite file, and a throwaway PostgreSQL server
// (skipped where PostgreSQL is not installed, failed where pgtest.RequireEnv is set).
func onEachDatabase(t *testing.T, workers int, f func(t *testing.T, s *service), adjust ...func(*serve.Options)) {
	for _, db := range databases {
		t.Run(db.name, func(t *testing.T) {
			url, b, tokens := launch(t, db.url(t), workers, adjust...)
			f(t, &service{t: t, url: url, backend: b, tokens: tokens})
		})
	}
}

// databases are the two the store keeps its data in, each made fresh for a test.
var databases = []struct {
	name string
	url  func(tb testing.TB) string
}{
	{"on SQLite", func(tb testing.TB) string { return "sqlite:" + filepath.Join(tb.TempDir(), "serve.db") }},
	{"on PostgreSQL", func(tb testing.TB) string { return pgtest.Start(tb).Database("serve") }},
}

// launch starts a replica with that many workers on the database db, its stacks on the fake
// engine, stopped when the test ends, and makes a token of every role.
func launch(tb testing.TB, db string, workers int, adjust ...func(*serve.Options)) (string, *deploytest.Backend, map[auth.Role]string) {
	tb.Helper()
	b := deploytest.New()
	ctx, cancel := context.WithCancel(context.Background())
	opts := serve.Options{DatabaseURL: db, Workers: workers, Kinds: registry.Kinds(),
		Backend:      func() (stackstate.Backend, error) { return b, nil },
		StackTimeout: time.Minute, RescueAfter: time.Hour,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}, ProxyRole: auth.Editor}
	for _, f := range adjust {
		f(&opts)
	}
	svc, err := serve.Open(ctx, opts)
	if err != nil {
		cancel()
		tb.Fatal(err)
	}
	ts := httptest.NewServer(svc.Server.Handler())
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx, serve.Options{Workers: workers}) }()
	tb.Cleanup(func() {
		ts.Close()
		cancel()
		<-done
	})
	tokens := map[auth.Role]string{}
	for _, role := range []auth.Role{auth.Viewer, auth.Editor, auth.Controller, auth.Admin} {
		controller := ""
		if role == auth.Controller {
			controller = testController
		}
		if tokens[role], err = serve.CreateToken(ctx, svc.Store.Tokens(), "test-"+string(role), role, controller); err != nil {
			tb.Fatal(err)
		}
	}
	launched.Store(ts.URL, svc.Store)
	tb.Cleanup(func() { launched.Delete(ts.URL) })
	return ts.URL, b, tokens
}

// testController is the controller_name the controller token launch makes reports under.
const testController = "test-controller"

// launched maps the URL of each replica launch started to its store, for tests that write what
// only serve's own workers may write (their "clusterplane" status) without running a worker.
var launched sync.Map

// storeOf is the store of the replica launch started at url.
func storeOf(tb testing.TB, url string) *store.Store {
	tb.Helper()
	st, ok := launched.Load(url)
	if !ok {
		tb.Fatalf("no replica was launched at %s", url)
	}
	return st.(*store.Store)
}

// reportAsServe writes the status serve's own workers would report of the object: the report
// no API caller may make, and the only one that sets its phase and health.
func reportAsServe(tb testing.TB, url, kind, id string, generation int64, ready string) {
	tb.Helper()
	st := store.ControllerStatus{ControllerName: reconcile.Controller, ObservedGeneration: generation,
		Conditions: []store.Condition{{Type: "Ready", Status: ready, Reason: "Test"}}}
	if err := storeOf(tb, url).Statuses().Put(context.Background(), kind, id, st); err != nil {
		tb.Fatal(err)
	}
}

// call sends a request as role ("" for none) and returns the status and the decoded body.
func (s *service) call(role auth.Role, method, path, body string, headers ...string) (int, map[string]any) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	if role != "" {
		req.Header.Set("Authorization", "Bearer "+s.tokens[role])
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &out); err != nil {
			s.t.Fatalf("%s %s: not JSON: %s", method, path, data)
		}
	}
	return resp.StatusCode, out
}

func errorCode(out map[string]any) string {
	e, _ := out["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

const doCluster = `{"name": "api-fra1", "spec": {"platform": {"type": "digitalocean", "digitalocean": {
	"region": "fra1", "kubernetesVersion": "1.31.1-do.5", "deletionProtection": false,
	"defaultNodePool": {"size": "s-2vcpu-4gb", "nodeCount": 2}}}}}`

func doPool(clusterID string, nodes int) string {
	return fmt.Sprintf(`{"name": "workers", "cluster_id": %q, "spec": {"platform": {"type": "digitalocean",
		"digitalocean": {"size": "s-2vcpu-4gb"}}, "nodeCount": %d}}`, clusterID, nodes)
}

// waitReady waits until the object's controller status says Ready=True for its generation.
func (s *service) waitReady(path string) map[string]any {
	s.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var last map[string]any
	for time.Now().Before(deadline) {
		_, obj := s.call(auth.Viewer, "GET", path, "")
		_, st := s.call(auth.Viewer, "GET", path+"/status", "")
		last = st
		for _, cs := range list(st["controller_status"]) {
			if cs["observed_generation"] == obj["generation"] && condition(cs, "Ready") == "True" {
				return cs
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("%s never became Ready for its generation: %v", path, last)
	return nil
}

func list(v any) []map[string]any {
	var out []map[string]any
	items, _ := v.([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		out = append(out, m)
	}
	return out
}

func condition(cs map[string]any, typ string) string {
	for _, c := range list(cs["conditions"]) {
		if c["type"] == typ {
			s, _ := c["status"].(string)
			return s
		}
	}
	return ""
}

func TestEveryRouteAnswersAsTheSeedShowsWithTheRightCodes(t *testing.T) {
	onEachDatabase(t, 0, func(t *testing.T, s *service) { // no workers: the routes alone
		code, cluster := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
		if code != http.StatusCreated || cluster["generation"] != float64(1) || cluster["resource_version"] == "" || cluster["created_by"] == "" {
			t.Fatalf("create cluster: %d %v", code, cluster)
		}
		id := cluster["id"].(string)
		code, pool := s.call(auth.Editor, "POST", "/api/v1/clusters/"+id+"/nodepools", doPool(id, 2))
		if code != http.StatusCreated {
			t.Fatalf("create pool: %d %v", code, pool)
		}
		poolID := pool["id"].(string)
		rv := pool["resource_version"].(string)
		tests := []struct {
			name, method, path, body string
			role                     auth.Role
			headers                  []string
			want                     int
			wantCode                 string
		}{
			{"a request without a token is unauthenticated", "GET", "/api/v1/clusters", "", "", nil, 401, "UNAUTHENTICATED"},
			{"a garbled token is unauthenticated", "GET", "/api/v1/clusters", "", "", []string{"Authorization", "Bearer cpt_nope"}, 401, "UNAUTHENTICATED"},
			{"X-User-Email from an untrusted address is ignored", "GET", "/api/v1/clusters", "", "", []string{"X-User-Email", "user@example.com"}, 401, "UNAUTHENTICATED"},
			{"a viewer lists clusters", "GET", "/api/v1/clusters", "", auth.Viewer, nil, 200, ""},
			{"a viewer may not create", "POST", "/api/v1/clusters", doCluster, auth.Viewer, nil, 403, "FORBIDDEN"},
			{"an editor may not report status", "PUT", "/api/v1/nodepools/" + poolID + "/status", `{"controller_name": "x", "observed_generation": 1, "conditions": []}`, auth.Editor, nil, 403, "FORBIDDEN"},
			{"an admin may not report status either", "PUT", "/api/v1/nodepools/" + poolID + "/status", `{"controller_name": "x", "observed_generation": 1, "conditions": []}`, auth.Admin, nil, 403, "FORBIDDEN"},
			{"a controller reports status under its own name", "PUT", "/api/v1/nodepools/" + poolID + "/status", `{"controller_name": "test-controller", "observed_generation": 1, "conditions": [{"type": "Ready", "status": "True", "reason": "NodesReady"}]}`, auth.Controller, nil, 200, ""},
			{"a status report for an id that is no id is not found", "PUT", "/api/v1/nodepools/nope/status", `{"controller_name": "test-controller", "observed_generation": 1, "conditions": []}`, auth.Controller, nil, 404, "NOT_FOUND"},
			{"a controller may not write a pool", "PUT", "/api/v1/nodepools/" + poolID, doPool(id, 3), auth.Controller, []string{"If-Match", rv}, 403, "FORBIDDEN"},
			{"an unknown cluster is not found", "GET", "/api/v1/clusters/00000000-0000-0000-0000-000000000001", "", auth.Viewer, nil, 404, "NOT_FOUND"},
			{"an id that is no id is not found", "GET", "/api/v1/nodepools/nope", "", auth.Viewer, nil, 404, "NOT_FOUND"},
			{"a pool in an unknown cluster is not found", "POST", "/api/v1/clusters/00000000-0000-0000-0000-000000000001/nodepools", doPool("", 2), auth.Editor, nil, 404, "NOT_FOUND"},
			{"a second cluster of one name conflicts", "POST", "/api/v1/clusters", doCluster, auth.Editor, nil, 409, "CONFLICT"},
			{"a second pool of one name in a cluster conflicts", "POST", "/api/v1/nodepools", doPool(id, 2), auth.Editor, nil, 409, "CONFLICT"},
			{"an update without If-Match is refused", "PUT", "/api/v1/nodepools/" + poolID, doPool(id, 3), auth.Editor, nil, 428, "PRECONDITION_REQUIRED"},
			{"an update with a stale If-Match fails", "PUT", "/api/v1/nodepools/" + poolID, doPool(id, 3), auth.Editor, []string{"If-Match", "1"}, 412, "PRECONDITION_FAILED"},
			{"a delete with a stale If-Match fails", "DELETE", "/api/v1/nodepools/" + poolID, "", auth.Editor, []string{"If-Match", `"1"`}, 412, "PRECONDITION_FAILED"},
			{"a cluster with pools is not deleted", "DELETE", "/api/v1/clusters/" + id, "", auth.Editor, []string{"If-Match", cluster["resource_version"].(string)}, 409, "CONFLICT"},
			{"a list's limit is bounded", "GET", "/api/v1/nodepools?limit=101", "", auth.Viewer, nil, 400, "VALIDATION_ERROR"},
			{"a list's status filter names a phase", "GET", "/api/v1/nodepools?status=Sleepy", "", auth.Viewer, nil, 400, "VALIDATION_ERROR"},
			{"a pool's status is read", "GET", "/api/v1/nodepools/" + poolID + "/status", "", auth.Viewer, nil, 200, ""},
			{"a cluster's pools are listed", "GET", "/api/v1/clusters/" + id + "/nodepools?limit=10&status=Ready", "", auth.Viewer, nil, 200, ""},
			{"the OpenAPI document is served without a token", "GET", "/openapi.json", "", "", nil, 200, ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				code, out := s.call(tt.role, tt.method, tt.path, tt.body, tt.headers...)
				if code != tt.want || errorCode(out) != tt.wantCode {
					t.Errorf("%s %s: got %d %q, want %d %q: %v", tt.method, tt.path, code, errorCode(out), tt.want, tt.wantCode, out)
				}
			})
		}
		t.Run("a pool reported Ready is listed under status=Ready with its total", func(t *testing.T) {
			reportAsServe(t, s.url, store.NodePool, poolID, 1, "True")
			_, out := s.call(auth.Viewer, "GET", "/api/v1/nodepools?status=Ready&health=Healthy", "")
			if out["total"] != float64(1) || len(list(out["nodepools"])) != 1 {
				t.Errorf("got %v", out)
			}
		})
		t.Run("another controller's report is kept beside it and leaves the phase as clusterplane's says", func(t *testing.T) {
			code, out := s.call(auth.Controller, "PUT", "/api/v1/nodepools/"+poolID+"/status",
				`{"controller_name": "test-controller", "observed_generation": 1, "conditions": [{"type": "Ready", "status": "False", "reason": "NoGPUs"}]}`)
			if code != 200 || len(list(out["controller_status"])) != 2 {
				t.Fatalf("got %d %v", code, out)
			}
			if _, obj := s.call(auth.Viewer, "GET", "/api/v1/nodepools/"+poolID, ""); obj["phase"] != "Ready" {
				t.Errorf("phase %v, want Ready (clusterplane's report)", obj["phase"])
			}
		})
		t.Run("If-Match: * overwrites whatever version is there", func(t *testing.T) {
			code, out := s.call(auth.Editor, "PUT", "/api/v1/nodepools/"+poolID, doPool(id, 4), "If-Match", "*")
			if code != 200 || out["generation"] != float64(2) {
				t.Errorf("got %d %v", code, out)
			}
		})
	})
}

// Promise: api-unknown-fields-refused
func TestABodyGetsEveryProblemAtOnceNamedAsItWroteThem(t *testing.T) {
	onEachDatabase(t, 0, func(t *testing.T, s *service) {
		tests := []struct {
			name, body string
			want       []string
		}{
			{"the cloud's block and the seed's fields are named as written",
				`{"name": "bad", "spec": {"platform": {"type": "digitalocean", "digitalocean": {"region": "fra1", "kubernetesVersion": "1.31.1-do.5", "defaultNodePool": {"size": "s-2vcpu-4gb", "nodeCount": -1}, "colour": "red"}}}}`,
				[]string{"spec.platform.digitalocean.defaultNodePool.nodeCount", "spec.platform.digitalocean.colour"}},
			{"an unknown platform is named", `{"name": "bad", "spec": {"platform": {"type": "gcp"}}}`, []string{"spec.platform.type"}},
			{"a missing name is named", `{"spec": {"platform": {"type": "civo", "civo": {}}}}`, []string{"name"}},
			{"an unknown top-level field is named", `{"name": "x", "spec": {"platform": {"type": "civo", "civo": {}}}, "colour": 1}`, []string{"(body)"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				code, out := s.call(auth.Editor, "POST", "/api/v1/clusters", tt.body)
				if code != 400 || errorCode(out) != "VALIDATION_ERROR" {
					t.Fatalf("got %d %v", code, out)
				}
				e := out["error"].(map[string]any)
				fields := map[string]bool{}
				for _, p := range list(e["problems"]) {
					fields[p["field"].(string)] = true
				}
				for _, f := range tt.want {
					if !fields[f] {
						t.Errorf("no problem names %s: %v", f, e["problems"])
					}
				}
			})
		}
		t.Run("a pool's nodeCount and autoscaling are named as the seed writes them", func(t *testing.T) {
			_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
			id := c["id"].(string)
			code, out := s.call(auth.Editor, "POST", "/api/v1/clusters/"+id+"/nodepools",
				`{"name": "w", "spec": {"platform": {"type": "digitalocean", "digitalocean": {"size": "s-2vcpu-4gb"}}, "autoscaling": {"enabled": true, "minNodes": 5, "maxNodes": 2}, "nodeCount": -3}}`)
			details, _ := out["error"].(map[string]any)["details"].(string)
			if code != 400 || !strings.Contains(details, "spec.autoscaling") || !strings.Contains(details, "spec.nodeCount") {
				t.Errorf("got %d %v", code, out)
			}
			if strings.Contains(details, "autoScale") || strings.Contains(details, "minNodes <") {
				t.Errorf("a message says the manifest's word, not the body's: %s", details)
			}
			// The fields an unknown one could have been are those the block may hold: not those
			// the API writes from the body's own.
			_, out = s.call(auth.Editor, "POST", "/api/v1/clusters/"+id+"/nodepools",
				`{"name": "w", "spec": {"platform": {"type": "digitalocean", "digitalocean": {"size": "s-2vcpu-4gb", "zzzzzz": 1}}, "nodeCount": 2}}`)
			details, _ = out["error"].(map[string]any)["details"].(string)
			if !strings.Contains(details, "the fields here are labels, rollout, size, tags, taints)") {
				t.Errorf("an unknown field's hint: %s, want the block's fields only", details)
			}
		})
	})
}

func TestGenerationMovesOnlyWhenTheSpecChanges(t *testing.T) {
	onEachDatabase(t, 0, func(t *testing.T, s *service) {
		_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
		id := c["id"].(string)
		_, p := s.call(auth.Editor, "POST", "/api/v1/nodepools", doPool(id, 2))
		path := "/api/v1/nodepools/" + p["id"].(string)
		code, same := s.call(auth.Editor, "PUT", path, doPool(id, 2), "If-Match", p["resource_version"].(string))
		if code != 200 || same["generation"] != float64(1) || same["resource_version"] == p["resource_version"] {
			t.Fatalf("re-sent spec: want generation 1 and a new resource_version, got %d %v", code, same)
		}
		code, scaled := s.call(auth.Editor, "PUT", path, doPool(id, 5), "If-Match", `"`+same["resource_version"].(string)+`"`)
		if code != 200 || scaled["generation"] != float64(2) {
			t.Fatalf("scaled: want generation 2, got %d %v", code, scaled)
		}
	})
}

func TestOfAHundredConcurrentScalesWithOneVersionExactlyOneWins(t *testing.T) {
	onEachDatabase(t, 0, func(t *testing.T, s *service) {
		_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
		id := c["id"].(string)
		_, p := s.call(auth.Editor, "POST", "/api/v1/nodepools", doPool(id, 2))
		path, rv := "/api/v1/nodepools/"+p["id"].(string), p["resource_version"].(string)
		codes := make([]int, 100)
		var wg sync.WaitGroup
		for i := range codes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i], _ = s.call(auth.Editor, "PUT", path, doPool(id, 3+i%50), "If-Match", rv)
			}()
		}
		wg.Wait()
		count := map[int]int{}
		for _, c := range codes {
			count[c]++
		}
		if count[200] != 1 || count[412] != 99 {
			t.Errorf("want exactly one 200 and 99 412s, got %v", count)
		}
	})
}

// More requests at once than PostgreSQL takes connections (100 by default): the store must queue
// them on a few connections rather than open one each.
func TestBurstsOfTwoHundredConcurrentReadsAreAllAnswered(t *testing.T) {
	onEachDatabase(t, 0, func(t *testing.T, s *service) {
		_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
		path := "/api/v1/clusters/" + c["id"].(string)
		codes := make([]int, 5*200)
		for burst := range 5 {
			var wg sync.WaitGroup
			for i := range 200 {
				wg.Go(func() { codes[burst*200+i], _ = s.call(auth.Viewer, "GET", path, "") })
			}
			wg.Wait()
		}
		count := map[int]int{}
		for _, code := range codes {
			count[code]++
		}
		if count[200] != len(codes) {
			t.Errorf("want %d 200s, got %v", len(codes), count)
		}
	})
}

func TestACallerOverItsRateIsAnswered429AndOthersAreNot(t *testing.T) {
	url, b, tokens := launch(t, "sqlite:"+filepath.Join(t.TempDir(), "serve.db"), 0, func(o *serve.Options) { o.RateLimit, o.RateBurst = 1, 3 })
	s := &service{t: t, url: url, backend: b, tokens: tokens}
	var codes []int
	for range 5 {
		code, out := s.call(auth.Viewer, "GET", "/api/v1/clusters", "")
		codes = append(codes, code)
		if code == http.StatusTooManyRequests && errorCode(out) != "RATE_LIMITED" {
			t.Errorf("a 429's code is %q, want RATE_LIMITED", errorCode(out))
		}
	}
	if !slices.Equal(codes, []int{200, 200, 200, 429, 429}) {
		t.Errorf("a viewer's 5 requests at once with a burst of 3: %v, want 3 answered and 2 refused", codes)
	}
	if code, _ := s.call(auth.Editor, "GET", "/api/v1/clusters", ""); code != http.StatusOK {
		t.Errorf("another caller was answered %d", code)
	}
	// Garbled tokens count against the address they come from.
	limited := false
	for range 5 {
		req, _ := http.NewRequest("GET", url+"/api/v1/clusters", nil)
		req.Header.Set("Authorization", "Bearer cpt_0000000000000000_guess")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests {
			limited = resp.Header.Get("Retry-After") != ""
		}
	}
	if !limited {
		t.Error("5 guessed tokens from one address were never answered 429 with Retry-After")
	}
}

func TestTheWorkersDeployScaleAndDeleteThroughThePipeline(t *testing.T) {
	onEachDatabase(t, 2, func(t *testing.T, s *service) {
		_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
		cluster := "/api/v1/clusters/" + c["id"].(string)
		s.waitReady(cluster)
		_, p := s.call(auth.Editor, "POST", "/api/v1/clusters/"+c["id"].(string)+"/nodepools", doPool(c["id"].(string), 2))
		pool := "/api/v1/nodepools/" + p["id"].(string)
		st := s.waitReady(pool)
		if md, _ := st["metadata"].(map[string]any); md["desired_nodes"] != float64(2) || md["platform"] != "digitalocean" {
			t.Errorf("metadata: %v", st["metadata"])
		}
		code, scaled := s.call(auth.Editor, "PUT", pool, doPool(c["id"].(string), 4), "If-Match", p["resource_version"].(string))
		if code != 200 {
			t.Fatalf("scale: %d %v", code, scaled)
		}
		st = s.waitReady(pool)
		if st["observed_generation"] != float64(2) {
			t.Errorf("after the scale: %v", st)
		}
		if !s.backend.Has("digitaloceankubernetesnodepool/api-fra1-workers") {
			t.Fatalf("the pool's stack is not deployed: %v", s.backend.Calls())
		}
		_, now := s.call(auth.Viewer, "GET", pool, "")
		if code, out := s.call(auth.Editor, "DELETE", pool, "", "If-Match", now["resource_version"].(string)); code != 202 || out["phase"] != "Finalizing" {
			t.Fatalf("delete: %d %v", code, out)
		}
		deadline := time.Now().Add(60 * time.Second)
		for {
			if code, _ := s.call(auth.Viewer, "GET", pool, ""); code == 404 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the pool was never deleted: %v", s.backend.Calls())
			}
			time.Sleep(100 * time.Millisecond)
		}
		if len(s.backend.Resources("digitaloceankubernetesnodepool/api-fra1-workers")) != 0 {
			t.Errorf("the pool's stack still holds %v", s.backend.Resources("digitaloceankubernetesnodepool/api-fra1-workers"))
		}
	})
}

// Drifted is read from the cloud: after each deploy, and by the periodic check, which finds a
// console edit made since. The metadata says what the stack holds and what it costs.
// Promise: api-monthly-cost-prices
func TestAChangeMadeInTheCloudIsReportedDriftedByTheCheckThatFollows(t *testing.T) {
	onEachDatabase(t, 1, func(t *testing.T, s *service) {
		_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
		s.waitReady("/api/v1/clusters/" + c["id"].(string))
		_, p := s.call(auth.Editor, "POST", "/api/v1/clusters/"+c["id"].(string)+"/nodepools", doPool(c["id"].(string), 2))
		pool := "/api/v1/nodepools/" + p["id"].(string)
		st := s.waitReady(pool)
		if drifted := conditionOf(st, "Drifted"); drifted["status"] != "False" || drifted["reason"] != "InSync" {
			t.Errorf("right after the deploy, Drifted is %v, want False, InSync (read from the cloud)", drifted)
		}
		md, _ := st["metadata"].(map[string]any)
		if cost, _ := md["monthly_cost"].(map[string]any); cost["min"] != float64(48) || cost["max"] != float64(48) || cost["currency"] != "USD" || cost["source"] == "" {
			t.Errorf("monthly_cost: %v, want two s-2vcpu-4gb nodes at the table's $24", md["monthly_cost"])
		}
		if _, ok := md["active_nodes"]; !ok {
			t.Errorf("no active_nodes in %v", md)
		}
		const key, poolType = "digitaloceankubernetesnodepool/api-fra1-workers", "digitalocean:index/kubernetesNodePool:KubernetesNodePool"
		for _, r := range s.backend.Resources(key) {
			if typ, name, _ := strings.Cut(r, "::"); typ == poolType {
				s.backend.Edit(key, typ, name, "nodeCount", 5)
			}
		}
		deadline := time.Now().Add(60 * time.Second)
		for {
			_, now := s.call(auth.Viewer, "GET", pool+"/status", "")
			cs := list(now["controller_status"])
			if len(cs) == 1 && condition(cs[0], "Drifted") == "True" {
				_, obj := s.call(auth.Viewer, "GET", pool, "")
				if obj["health"] != "Drifted" || condition(cs[0], "Ready") != "True" {
					t.Errorf("a drifted pool: health %v, Ready %s; want Drifted, and still Ready", obj["health"], condition(cs[0], "Ready"))
				}
				if d := conditionOf(cs[0], "Drifted"); d["reason"] != "ChangesPending" || !strings.Contains(fmt.Sprint(d["message"]), "the next deploy of the spec would update") {
					t.Errorf("Drifted: %v, want ChangesPending, saying what the next deploy of the spec would do", d)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the console edit was never reported Drifted: %v", now)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}, func(o *serve.Options) { o.DriftEvery = time.Second })
}

// Sweeps due faster than a replica runs them (a short interval, a busy queue) wait one at a
// time: none piles up in the queue ahead of the writes' reconciles.
// Promise: api-object-never-two-checks-waiting
func TestDriftSweepsDueFasterThanTheyRunNeverPileUp(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "serve.db")
	launch(t, db, 1, func(o *serve.Options) { o.DriftEvery = time.Millisecond })
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sweeps := func() (waiting, all int) {
		if err := st.DB.QueryRow(`SELECT count(*) FILTER (WHERE state IN ('available', 'scheduled', 'pending', 'running')), count(*)
			FROM river_job WHERE kind = 'clusterplane_drift_sweep'`).Scan(&waiting, &all); err != nil {
			t.Fatal(err)
		}
		return waiting, all
	}
	// River's leader, which queues periodic jobs, is elected within seconds of the start.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, all := sweeps(); all > 0 {
			break
		}
	}
	time.Sleep(2 * time.Second)
	if waiting, all := sweeps(); waiting > 1 || all == 0 {
		t.Errorf("%d sweeps waiting of %d queued at an interval of 1 ms, want at most 1 waiting (and some run)", waiting, all)
	}
}

func conditionOf(cs map[string]any, typ string) map[string]any {
	for _, c := range list(cs["conditions"]) {
		if c["type"] == typ {
			return c
		}
	}
	return nil
}

// A stack the worker cannot even look for (no Pulumi CLI on the replica, its backend out of
// reach) is a failure the status says, and River's retry then deploys it.
// Promise: api-ready-false-refused-or-failed
func TestAStackThatCannotBeLookedForIsReportedFailedAndRetried(t *testing.T) {
	onEachDatabase(t, 1, func(t *testing.T, s *service) {
		s.backend.Fail("digitaloceankubernetescluster/api-fra1", "open", errors.New("the Pulumi CLI is not on PATH"))
		_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
		path := "/api/v1/clusters/" + c["id"].(string)
		seen := false
		deadline := time.Now().Add(60 * time.Second)
		for !seen && time.Now().Before(deadline) {
			_, st := s.call(auth.Viewer, "GET", path+"/status", "")
			for _, cs := range list(st["controller_status"]) {
				text := fmt.Sprint(cs["conditions"])
				seen = condition(cs, "Ready") == "False" && strings.Contains(text, "Failed") && strings.Contains(text, "not on PATH")
			}
			time.Sleep(20 * time.Millisecond)
		}
		if !seen {
			t.Fatal("the failure to look for the stack was never reported as Ready=False, reason Failed, with its message")
		}
		s.waitReady(path)
	})
}

// Promise: api-protected-replacement-refused
// Promise: api-reason-refused
func TestAProtectedClustersReplacementEndsRefusedAndItsDeleteIsRefused(t *testing.T) {
	onEachDatabase(t, 1, func(t *testing.T, s *service) {
		protected := strings.Replace(doCluster, `"deletionProtection": false,`, "", 1)
		_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", protected)
		path := "/api/v1/clusters/" + c["id"].(string)
		s.waitReady(path)
		_, now := s.call(auth.Viewer, "GET", path, "")
		if code, out := s.call(auth.Editor, "DELETE", path, "", "If-Match", now["resource_version"].(string)); code != 409 || !strings.Contains(fmt.Sprint(out), "protected") {
			t.Errorf("delete of a protected cluster: %d %v", code, out)
		}
		moved := strings.Replace(protected, `"region": "fra1"`, `"region": "ams3"`, 1)
		code, out := s.call(auth.Editor, "PUT", path, moved, "If-Match", now["resource_version"].(string))
		if code != 200 {
			t.Fatalf("update: %d %v", code, out)
		}
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			_, st := s.call(auth.Viewer, "GET", path+"/status", "")
			for _, cs := range list(st["controller_status"]) {
				if cs["observed_generation"] == float64(2) && condition(cs, "Ready") == "False" {
					for _, cond := range list(cs["conditions"]) {
						if cond["type"] == "Ready" && cond["reason"] != "Refused" {
							t.Errorf("want reason Refused, got %v", cond)
						}
					}
					return
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatal("the replacement never ended Ready=False")
	})
}

// Promise: api-replacing-change-refused
// Promise: api-ready-false-refused-or-failed
// Promise: api-reason-refused
func TestAChangeThatReplacesAnUnprotectedClusterEndsRefusedAndReplacesNothing(t *testing.T) {
	onEachDatabase(t, 1, func(t *testing.T, s *service) {
		_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
		path := "/api/v1/clusters/" + c["id"].(string)
		s.waitReady(path)
		// A change the effects table calls in place, which this engine replaces: the PUT is
		// taken (the table is all it can read), and the worker's up refuses the replacement.
		s.backend.Replaces("tags")
		_, now := s.call(auth.Viewer, "GET", path, "")
		moved := strings.Replace(doCluster, `"region": "fra1"`, `"region": "fra1", "tags": ["team-a"]`, 1)
		if code, out := s.call(auth.Editor, "PUT", path, moved, "If-Match", now["resource_version"].(string)); code != 200 {
			t.Fatalf("update: %d %v", code, out)
		}
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			_, st := s.call(auth.Viewer, "GET", path+"/status", "")
			for _, cs := range list(st["controller_status"]) {
				if cs["observed_generation"] != float64(2) || condition(cs, "Ready") != "False" {
					continue
				}
				if text := fmt.Sprint(cs["conditions"]); !strings.Contains(text, "Refused") || !strings.Contains(text, "replaces") {
					t.Errorf("want Refused saying what it replaces, got %v", cs["conditions"])
				}
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatal("the replacement never ended Ready=False")
	})
}

// docs/api.md says what a replacing PUT is answered, in Bodies and in its table of errors, and
// that nothing is saved: the answer, the status's row of the table and the object after it must
// agree with it.
// Promise: api-replacing-put-conflict
func TestAPutWhoseChangeReplacesIsAConflictNamingTheFieldAndRolloutUnlessTheBodyCarriesOne(t *testing.T) {
	docErrors, said := apiDocErrors(t), apiDocPromise(t, "api-replacing-put-conflict")
	onEachDatabase(t, 0, func(t *testing.T, s *service) { // no workers: the write alone
		_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
		id := c["id"].(string)
		_, p := s.call(auth.Editor, "POST", "/api/v1/clusters/"+id+"/nodepools", doPool(id, 2))
		poolPath := "/api/v1/nodepools/" + p["id"].(string)
		resized := strings.Replace(doPool(id, 3), `"size": "s-2vcpu-4gb"`, `"size": "s-4vcpu-8gb"`, 1)
		rotated := strings.Replace(doPool(id, 3), `"size": "s-2vcpu-4gb"`, `"size": "s-4vcpu-8gb", "rollout": {"strategy": "ROTATE"}`, 1)
		tests := []struct {
			name, path, body string
			want             int
			says             []string
		}{
			{"a cluster moved to another region is a conflict", "/api/v1/clusters/" + id,
				strings.Replace(doCluster, `"region": "fra1"`, `"region": "ams3"`, 1), 409, []string{"spec.platform.digitalocean.region", "never replaces"}},
			{"a pool scaled is taken", poolPath, doPool(id, 3), 200, nil},
			{"a pool resized without a rollout block is a conflict naming rollout", poolPath, resized, 409,
				[]string{"spec.platform.digitalocean.size", "rollout", "ROTATE"}},
			{"a pool resized with a rollout block is taken", poolPath, rotated, 200, nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, now := s.call(auth.Viewer, "GET", tt.path, "")
				code, out := s.call(auth.Editor, "PUT", tt.path, tt.body, "If-Match", now["resource_version"].(string))
				if code != tt.want || (tt.want == 409 && errorCode(out) != "CONFLICT") {
					t.Fatalf("PUT = %d %v, want %d", code, out, tt.want)
				}
				for _, say := range tt.says {
					if !strings.Contains(fmt.Sprint(out), say) {
						t.Errorf("the answer %v does not say %q", out, say)
					}
				}
				if tt.want != 409 {
					return
				}
				_, after := s.call(auth.Viewer, "GET", tt.path, "")
				for _, field := range []string{"generation", "resource_version", "spec"} {
					if fmt.Sprint(after[field]) != fmt.Sprint(now[field]) {
						t.Errorf("a refused PUT changed the object's %s: %v, was %v", field, after[field], now[field])
					}
				}
				answered := fmt.Sprintf("`%d %s`", code, errorCode(out))
				if !strings.Contains(said, answered+" at once") || !strings.Contains(said, "nothing is saved") {
					t.Errorf("docs/api.md's Bodies says of a replacing PUT %q; it is answered %s at once and nothing is saved", said, answered)
				}
				if row, ok := docErrors[code]; !ok || row.code != errorCode(out) || !strings.Contains(row.when, "(`PUT`) the change would replace the cluster or pool") {
					t.Errorf("docs/api.md's error table has %d as %+v; a replacing PUT is answered %d %s", code, row, code, errorCode(out))
				}
			})
		}
	})
}

// Promise: api-existing-stack-never-taken-over
func TestAStackMadeOutsideTheAPIIsNeverTakenOver(t *testing.T) {
	onEachDatabase(t, 1, func(t *testing.T, s *service) {
		manifest, err := body.ClusterManifest(mustBody(t, doCluster))
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "cluster.yaml")
		if err := os.WriteFile(file, manifest, 0o600); err != nil {
			t.Fatal(err)
		}
		kinds := registry.Kinds()
		outcomes, err := pipeline.Run(context.Background(), pipeline.Request{Paths: []string{file},
			Files: deploytarget.Files{Reader: files.Reader{Kinds: kinds.Names()}, Kinds: kinds}, Backend: func() (stackstate.Backend, error) { return s.backend, nil },
			Parallel: 1, StackTimeout: time.Minute, Op: pipeline.Up(deploy.UpOptions{Yes: true})})
		if err != nil || len(outcomes) != 1 || outcomes[0].Status != outcome.Done {
			t.Fatalf("the CLI's up: %v %v", outcomes, err)
		}
		calls := len(s.backend.Calls())
		_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
		path := "/api/v1/clusters/" + c["id"].(string)
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			_, st := s.call(auth.Viewer, "GET", path+"/status", "")
			for _, cs := range list(st["controller_status"]) {
				if condition(cs, "Ready") == "False" {
					if text := fmt.Sprint(cs["conditions"]); !strings.Contains(text, "Refused") || !strings.Contains(text, "not made by this API") {
						t.Errorf("want Refused saying the stack is not the API's, got %v", cs["conditions"])
					}
					// Deleting the refused object forgets it and leaves the stack alone.
					_, now := s.call(auth.Viewer, "GET", path, "")
					if code, out := s.call(auth.Editor, "DELETE", path, "", "If-Match", now["resource_version"].(string)); code != 202 {
						t.Fatalf("delete the refused object: %d %v", code, out)
					}
					for code, _ := s.call(auth.Viewer, "GET", path, ""); code != 404; code, _ = s.call(auth.Viewer, "GET", path, "") {
						if time.Now().After(deadline) {
							t.Fatal("the refused object was never forgotten")
						}
						time.Sleep(100 * time.Millisecond)
					}
					for _, call := range s.backend.Calls()[calls:] {
						if op, _, _ := strings.Cut(call, " "); op != "history" {
							t.Errorf("the API ran %s on the stack it did not make (only its history may be read)", call)
						}
					}
					if !s.backend.Has("digitaloceankubernetescluster/api-fra1") || len(s.backend.Resources("digitaloceankubernetescluster/api-fra1")) == 0 {
						t.Error("the stack made outside the API is gone")
					}
					return
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatal("the API's cluster never ended Ready=False")
	})
}

func mustBody(t *testing.T, text string) body.Body {
	t.Helper()
	b, err := body.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestTwoJobsOfOneObjectTakeTurnsOnItsStackAndNeitherFails(t *testing.T) {
	onEachDatabase(t, 2, func(t *testing.T, s *service) {
		_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
		id := c["id"].(string)
		s.waitReady("/api/v1/clusters/" + id)
		_, p := s.call(auth.Editor, "POST", "/api/v1/nodepools", doPool(id, 2))
		path := "/api/v1/nodepools/" + p["id"].(string)
		s.waitReady(path)
		// Each up of the pool now takes a while, so that the second write's job meets the first's.
		s.backend.Delay("digitaloceankubernetesnodepool/api-fra1-workers", "update", 3*time.Second)
		_, now := s.call(auth.Viewer, "GET", path, "")
		_, first := s.call(auth.Editor, "PUT", path, doPool(id, 3), "If-Match", now["resource_version"].(string))
		time.Sleep(1500 * time.Millisecond) // the first job is in its up
		_, second := s.call(auth.Editor, "PUT", path, doPool(id, 4), "If-Match", first["resource_version"].(string))
		if second["generation"] != float64(3) {
			t.Fatalf("second write: %v", second)
		}
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			_, st := s.call(auth.Viewer, "GET", path+"/status", "")
			for _, cs := range list(st["controller_status"]) {
				if condition(cs, "Ready") == "False" {
					t.Fatalf("a job failed while the other held the stack: %v", cs["conditions"])
				}
				if cs["observed_generation"] == float64(3) && condition(cs, "Ready") == "True" {
					return
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatal("the pool never became Ready for generation 3")
	})
}

// A replica killed in the middle of a job (kill -9, a lost machine) leaves the job running in
// the queue, with the lease its worker no longer renews. A replica started afterwards with the
// default options gives the job back at once and deploys the object, well within a minute,
// where River alone would wait for --rescue-after (hours); a job whose lease is still renewed
// is left to its worker.
func TestAJobWhoseWorkerDiedIsTakenUpByAFreshReplicaWithinAMinute(t *testing.T) {
	tests := []struct {
		name     string
		lease    time.Duration // how long the dead worker's lease still holds (negative: ran out)
		takenUp  bool
		attempts int64
	}{
		{"a job whose lease ran out is taken up and deployed", -time.Second, true, 2},
		{"a job whose lease still holds is left to its worker", time.Hour, false, 1},
	}
	// The worst case of the defaults: a worker that died just after it renewed its lease, found
	// by the rescuer's look just before the lease runs out, then the next one.
	if worst := reconcile.LeaseTTL + reconcile.RescueEvery; worst >= time.Minute || reconcile.LeaseRenew*3 > reconcile.LeaseTTL {
		t.Fatalf("the defaults take a dead worker's job up within %s (renewed every %s), want under a minute and three renewals a lease",
			worst, reconcile.LeaseRenew)
	}
	for _, db := range databases {
		for _, tt := range tests {
			t.Run(db.name+": "+tt.name, func(t *testing.T) {
				url := db.url(t)
				ctx := context.Background()
				dead := killMidJob(t, url, tt.lease)
				dead.api.Close()
				job := dead.job
				id := dead.object
				dead.Store.Close()

				started := time.Now()
				url2, _, tokens := launch(t, url, 1) // the default lease options
				s := &service{t: t, url: url2, tokens: tokens}
				if tt.takenUp {
					s.waitReady("/api/v1/clusters/" + id)
					if took := time.Since(started); took > time.Minute {
						t.Errorf("taken up and deployed in %s, want within a minute", took)
					}
				} else {
					time.Sleep(3 * time.Second) // the rescuer looks as the replica starts
				}
				st, err := store.Open(ctx, url)
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				var state string
				var attempt int64
				if err := st.DB.QueryRow(`SELECT state, attempt FROM river_job WHERE id = $1`, job).Scan(&state, &attempt); err != nil {
					t.Fatal(err)
				}
				if attempt != tt.attempts || !tt.takenUp && state != "running" {
					t.Errorf("the job is %s at attempt %d, want attempt %d (running when left to its worker)", state, attempt, tt.attempts)
				}
				// The fresh replica's rescuer gave the job back: its metrics count it.
				rescued := scrape(t, url2)[`clusterplane_jobs_rescued_total{kind="reconcile"}`]
				if want := map[bool]float64{true: 1, false: 0}[tt.takenUp]; rescued != want {
					t.Errorf("clusterplane_jobs_rescued_total = %v, want %v", rescued, want)
				}
			})
		}
	}
}
