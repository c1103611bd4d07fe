//go:build e2e

package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

// A Civo pool clusterplane deployed on a cluster made elsewhere carries no mark that discover could
// leave it out by, so discover writes it again under the cloud's names (newcomer6). Adopting that
// folder would make a second stack hold the pool, and destroying either would delete it under the
// other: adopt refuses it on the real engine and plugin, naming the stack that holds it, and
// adopts nothing.
// Promise: adopt-refuses-held-civo-pool
// Promise: sandbox-adopt-refuses-held-civo-pool
func TestAdoptRefusesACivoPoolThatDiscoverWroteAgainAndAStackHolds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedExamples()
	pool := e.write("pool.yaml", example(t, "civokubernetesnodepool/minimal.yaml"))
	if r, code := e.clusterplane("up", pool, "--yes"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	dir := filepath.Join(e.dir, "discovered")
	if r, code := e.clusterplane("discover", "civo", "--dir", dir); code != 0 {
		t.Fatalf("discover = %d: %s", code, r)
	}
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	before := e.inventory()
	r, code := e.clusterplane("adopt", dir)
	if code != exitcode.Invalid || !strings.Contains(r.stderr, "is already managed by stack civokubernetesnodepool/") ||
		!strings.Contains(r.stderr, "nothing adopted") {
		t.Errorf("adopt of %d discovered files = %d, want %d refusing the pool a stack holds: %s", len(files), code, exitcode.Invalid, r)
	}
	if after := e.inventory(); after != before {
		t.Errorf("the refused adopt changed the cloud: %s, was %s", after, before)
	}
	if r, code := e.clusterplane("status", pool); code != 0 {
		t.Errorf("status of the pool's own stack = %d, want 0 (still Ready): %s", code, r)
	}
}
