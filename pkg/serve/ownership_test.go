package serve_test

import (
	"context"
	"fmt"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/pipeline"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/manifest/files"
	"github.com/clusterplane/clusterplane/pkg/serve"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/body"
)

// poolStack is the stack of doPool's pool in doCluster's cluster.
const poolStack = "digitaloceankubernetesnodepool/api-fra1-workers"

// cli runs operation ("up" or "destroy") on the API's pool stack as `clusterplane up` or
// `clusterplane destroy` of a manifest of the same pool with that many nodes would.
func (s *service) cli(name operation.Name, nodes int) {
	s.t.Helper()
	manifest, err := body.PoolManifest(mustBody(s.t, doPool("", nodes)), body.ClusterOf(mustBody(s.t, doCluster)))
	if err != nil {
		s.t.Fatal(err)
	}
	file := filepath.Join(s.t.TempDir(), "pool.yaml")
	if err := os.WriteFile(file, manifest, 0o600); err != nil {
		s.t.Fatal(err)
	}
	kinds := registry.Kinds()
	r := pipeline.Request{Op: pipeline.Up(deploy.UpOptions{Yes: true}), Paths: []string{file},
		Files:   deploytarget.Files{Reader: files.Reader{Kinds: kinds.Names()}, Kinds: kinds},
		Backend: func() (stackstate.Backend, error) { return s.backend, nil }, Parallel: 1, StackTimeout: time.Minute,
	}
	if name == operation.Destroy {
		r.Op = pipeline.Destroy(deploy.DestroyOptions{Remove: true})
	}
	outcomes, err := pipeline.Run(context.Background(), r)
	if err != nil || len(outcomes) != 1 || outcomes[0].Status != outcome.Done {
		s.t.Fatalf("the CLI's %s: %v %v", name, outcomes, err)
	}
}

// waitDrifted waits until the object's Drifted condition has that reason and its message says
// want, and returns the controller status.
func (s *service) waitDrifted(path, reason, want string) map[string]any {
	s.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var last any
	for time.Now().Before(deadline) {
		_, st := s.call(auth.Viewer, "GET", path+"/status", "")
		for _, cs := range list(st["controller_status"]) {
			d := conditionOf(cs, "Drifted")
			last = d
			if d["status"] == "True" && d["reason"] == reason && strings.Contains(fmt.Sprint(d["message"]), want) {
				return cs
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("%s: Drifted never became True, %s, saying %q: last %v", path, reason, want, last)
	return nil
}

// destroys counts the destroys run on the pool's stack.
func (s *service) destroys() int {
	n := 0
	for _, call := range s.backend.Calls() {
		if call == "destroy "+poolStack {
			n++
		}
	}
	return n
}

// The API knows its stacks: a change made to an API pool's stack from the command line is
// reported at the next check, and a stack destroyed and made again there is never destroyed by
// the API, whether its DELETE comes after the check (refused, 409) or before it (accepted, then
// refused by the worker).
// Promise: api-stack-made-again-never-destroyed
// Promise: api-delete-before-check-refused
func TestAStackChangedOutsideTheAPIIsReportedAndOneMadeAgainThereIsNeverDestroyed(t *testing.T) {
	for _, tc := range []struct {
		name string
		// checks tells that the drift sweep runs (every second); without it, no check runs
		// between the CLI's re-make and the DELETE.
		checks bool
	}{
		{"when the check has run, the DELETE is answered 409 naming the stack", true},
		{"when no check has run, the accepted DELETE ends Refused and destroys nothing", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			every := time.Duration(0)
			if tc.checks {
				every = time.Second
			}
			onEachDatabase(t, 1, func(t *testing.T, s *service) {
				_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
				s.waitReady("/api/v1/clusters/" + c["id"].(string))
				_, p := s.call(auth.Editor, "POST", "/api/v1/clusters/"+c["id"].(string)+"/nodepools", doPool(c["id"].(string), 2))
				pool := "/api/v1/nodepools/" + p["id"].(string)
				s.waitReady(pool)

				s.cli(operation.Up, 3)
				if tc.checks {
					cs := s.waitDrifted(pool, "ChangedOutsideAPI", "changed outside the API")
					// The fake engine's outputs list no nodes, so active_nodes says nothing here (the
					// e2e test reads 3 from the real engine); the metadata says what ran and when.
					md, _ := cs["metadata"].(map[string]any)
					change, _ := md["changed_outside_api"].(map[string]any)
					if md["desired_nodes"] != float64(2) || change["operation"] != "update" || change["version"] != float64(2) || change["at"] == "" {
						t.Errorf("after the CLI's up, the metadata does not say the stack changed outside the API: %v", md)
					}
				}

				s.cli(operation.Destroy, 3)
				s.cli(operation.Up, 3)
				before := s.destroys()
				if tc.checks {
					s.waitDrifted(pool, "ChangedOutsideAPI", "made again outside the API")
				}
				_, now := s.call(auth.Viewer, "GET", pool, "")
				code, out := s.call(auth.Editor, "DELETE", pool, "", "If-Match", now["resource_version"].(string))
				if tc.checks {
					if msg := fmt.Sprint(out["error"]); code != 409 || !strings.Contains(msg, poolStack) || !strings.Contains(msg, "made again") {
						t.Fatalf("DELETE of a pool whose stack was made again outside the API: %d %v, want 409 naming %s and why", code, out, poolStack)
					}
				} else {
					if code != 202 {
						t.Fatalf("DELETE before any check: %d %v, want 202", code, out)
					}
					waitRefused(t, s, pool)
				}
				if s.destroys() != before || len(s.backend.Resources(poolStack)) == 0 {
					t.Errorf("the API destroyed the stack the CLI made again: %v", s.backend.Calls())
				}
			}, func(o *serve.Options) { o.DriftEvery = every })
		})
	}
}

// waitRefused waits until the object's status is Ready=False, Refused, saying its stack was
// made again outside the API.
func waitRefused(t *testing.T, s *service, path string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var last any
	for time.Now().Before(deadline) {
		_, st := s.call(auth.Viewer, "GET", path+"/status", "")
		for _, cs := range list(st["controller_status"]) {
			r := conditionOf(cs, "Ready")
			last = r
			if r["status"] == "False" && r["reason"] == "Refused" && strings.Contains(fmt.Sprint(r["message"]), "made again outside the API") &&
				strings.Contains(fmt.Sprint(r["message"]), poolStack) {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s never ended Refused for a stack made again outside the API: %v", path, last)
}
