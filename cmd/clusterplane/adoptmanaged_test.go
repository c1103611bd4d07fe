package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

// Promise: adopt-refuses-without-id-or-held
func TestAdoptRefusesAManifestWhoseStackAlreadyHoldsItsClusterBeforeTheEngineRuns(t *testing.T) {
	dir := fleet(t)
	cluster := filepath.Join(dir, "cluster.yaml")
	b := deploytest.New()
	if r := deployRun(t, b, strings.NewReader(""), false, "up", cluster, "--yes"); r.code != exitcode.OK {
		t.Fatalf("up = %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	annotate(t, cluster, "cluster-1")
	liveFleet(b)
	before := len(b.Calls())
	r := deployRun(t, b, strings.NewReader(""), false, "adopt", cluster)
	if r.code != exitcode.Invalid {
		t.Errorf("adopt into a deployed stack = %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, exitcode.Invalid, r.stdout, r.stderr)
	}
	for _, want := range []string{cluster, "already managed by stack digitaloceankubernetescluster/platform-prod", "nothing to adopt"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, r.stderr)
		}
	}
	for _, c := range b.Calls()[before:] {
		if strings.HasPrefix(c, "preview ") || strings.HasPrefix(c, "update ") {
			t.Errorf("the engine ran (%s) although the stack holds the cluster: %v", c, b.Calls()[before:])
		}
	}
}

// discover writes a pool clusterplane deployed on a cluster made elsewhere under the cloud's names
// (newcomer6: Civo pools carry no mark to leave them out by): adopting that file would make a
// second stack hold the pool, and destroying either would delete it under the other.
// Promise: adopt-refuses-without-id-or-held
func TestAdoptRefusesAnIdAnotherStackOfTheKindAlreadyHolds(t *testing.T) {
	dir := fleet(t)
	annotate(t, filepath.Join(dir, "cluster.yaml"), "cluster-1")
	annotate(t, filepath.Join(dir, "pool.yaml"), "pool-1")
	b := deploytest.New()
	liveFleet(b)
	if r := deployRun(t, b, strings.NewReader(""), false, "adopt", dir); r.code != exitcode.OK {
		t.Fatalf("adopt of the fleet = %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// The same pool written again under another name, as discover names it.
	pool := filepath.Join(dir, "pool.yaml")
	data, err := os.ReadFile(pool)
	if err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(t.TempDir(), "platform-prod-workers.yaml")
	if err := os.WriteFile(again, []byte(strings.Replace(string(data), "  name: workers\n", "  name: platform-prod-workers\n", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	before := len(b.Calls())
	r := deployRun(t, b, strings.NewReader(""), false, "adopt", again)
	if r.code != exitcode.Invalid {
		t.Errorf("adopt of a pool another stack holds = %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, exitcode.Invalid, r.stdout, r.stderr)
	}
	for _, want := range []string{again, "pool-1 is already managed by stack digitaloceankubernetesnodepool/workers", "nothing to adopt"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, r.stderr)
		}
	}
	if b.Has("digitaloceankubernetesnodepool/platform-prod-workers") {
		t.Error("adopt made a second stack for the pool")
	}
	for _, c := range b.Calls()[before:] {
		if strings.HasPrefix(c, "preview ") || strings.HasPrefix(c, "update ") {
			t.Errorf("the engine ran (%s) although another stack holds the pool: %v", c, b.Calls()[before:])
		}
	}
}
