package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/serve/api"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"
)

// openCounting is a backend that counts the stacks opened: judging a manifest by the policy
// opens its stack once, to read what it last deployed.
type openCounting struct {
	stackstate.Backend
	opens *atomic.Int64
}

var _ stackstate.Backend = openCounting{}

func (b openCounting) Open(ctx context.Context, project, stack string, program pulumi.RunFunc) (stackstate.Stack, error) {
	b.opens.Add(1)
	return b.Backend.Open(ctx, project, stack, program)
}

// readCounting is the kinds with each one's stack input counted as it is made: reading a
// manifest into its target makes its kind's stack input once.
func readCounting(reads *atomic.Int64) kinds.List {
	var out kinds.List
	for _, k := range registry.Kinds() {
		made := k.NewStackInput
		k.NewStackInput = func() proto.Message {
			reads.Add(1)
			return made()
		}
		out = append(out, k)
	}
	return out
}

// A request's body is read into its manifest once and judged by the policy once: the API's
// checks (the manifest's rules, the policy, an update's replacement) share one read, and an
// update reads the stored spec beside it once, to compare.
func TestARequestsBodyIsReadOnceAndJudgedOnce(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, store.SQLitePrefix+filepath.Join(t.TempDir(), "serve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	plain, rec, err := auth.NewToken("portal", auth.Editor)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Tokens().AddToken(ctx, rec); err != nil {
		t.Fatal(err)
	}
	p, err := policy.Parse("policy.yaml", []byte("rules:\n  - name: small-pools\n    message: at most 5 nodes\n"+
		"    kinds: [DigitalOceanKubernetesNodePool]\n    expression: spec.nodeCount <= 5\n"))
	if err != nil {
		t.Fatal(err)
	}
	var reads, opens atomic.Int64
	backend := openCounting{Backend: deploytest.New(), opens: &opens}
	s := &api.Server{Store: st, Auth: &auth.Authenticator{Tokens: st.Tokens()}, Kinds: readCounting(&reads), Policy: p,
		Backend: func() (stackstate.Backend, error) { return backend, nil }}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	send := func(method, path, text, ifMatch string) (int, map[string]any) {
		t.Helper()
		req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+plain)
		if ifMatch != "" {
			req.Header.Set("If-Match", ifMatch)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		var out map[string]any
		_ = json.Unmarshal(data, &out)
		return resp.StatusCode, out
	}
	cluster := `{"name": "api-fra1", "spec": {"platform": {"type": "digitalocean", "digitalocean": {"region": "fra1",
		"kubernetesVersion": "1.31.1-do.5", "deletionProtection": false, "defaultNodePool": {"size": "s-2vcpu-4gb", "nodeCount": 2}}}}}`
	code, c := send("POST", "/api/v1/clusters", cluster, "")
	if code != http.StatusCreated {
		t.Fatalf("create the cluster: %d %v", code, c)
	}
	pool := func(nodes int) string {
		return fmt.Sprintf(`{"name": "workers", "cluster_id": %q, "spec": {"platform": {"type": "digitalocean",
			"digitalocean": {"size": "s-2vcpu-4gb"}}, "nodeCount": %d}}`, c["id"], nodes)
	}
	var poolPath, version string
	tests := []struct {
		name string
		// send sends the request and says the status it wants.
		send         func() (int, map[string]any)
		want         int
		reads, opens int64
	}{
		{"a pool's create reads its body once and judges it once",
			func() (int, map[string]any) { return send("POST", "/api/v1/nodepools", pool(2), "") }, http.StatusCreated, 1, 1},
		{"a pool's update reads its body once, the stored spec once, and judges the body once",
			func() (int, map[string]any) { return send("PUT", poolPath, pool(3), version) }, http.StatusOK, 2, 1},
		{"a body the policy denies is read once and judged once, and the stored spec is not read",
			func() (int, map[string]any) { return send("PUT", poolPath, pool(6), version) }, http.StatusBadRequest, 1, 1},
		{"a cluster's create reads its body once and judges it once",
			func() (int, map[string]any) {
				return send("POST", "/api/v1/clusters", strings.Replace(cluster, "api-fra1", "api-ams3", 1), "")
			}, http.StatusCreated, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reads.Store(0)
			opens.Store(0)
			code, out := tt.send()
			if code != tt.want {
				t.Fatalf("status %d %v, want %d", code, out, tt.want)
			}
			if id, ok := out["id"].(string); ok && strings.HasPrefix(tt.name, "a pool's create") {
				poolPath = "/api/v1/nodepools/" + id
			}
			if rv, ok := out["resource_version"].(string); ok {
				version = rv
			}
			if got := reads.Load(); got != tt.reads {
				t.Errorf("manifests read into their targets: %d, want %d", got, tt.reads)
			}
			if got := opens.Load(); got != tt.opens {
				t.Errorf("the policy judged (the stack opened) %d times, want %d", got, tt.opens)
			}
		})
	}
}
