package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

// up --plan with a stack the plan does not hold refuses the whole fleet, naming that stack, and
// changes none; without files it takes the plan's, and applies.
// Promise: up-plan-refuses-a-stack-it-does-not-hold
func TestUpWithAPlanRefusesAStackThePlanDoesNotHoldAndWithoutFilesTakesThePlans(t *testing.T) {
	b := deploytest.New()
	dir := fleet(t)
	if r := deployRun(t, b, nil, false, "up", dir, "--yes"); r.code != exitcode.OK {
		t.Fatalf("up: %d %s", r.code, r.stderr)
	}
	// The plan is made of the cluster alone; the pool is edited since, and given to up too.
	plan := filepath.Join(t.TempDir(), "plan.json")
	if r := deployRun(t, b, nil, false, "preview", filepath.Join(dir, "cluster.yaml"), "--save-plan", plan); r.code != exitcode.OK {
		t.Fatalf("preview --save-plan: %d %s %s", r.code, r.stdout, r.stderr)
	}
	edit(t, dir, "pool.yaml", "nodeCount: 2", "nodeCount: 3")
	updates := len(b.Calls())
	r := deployRun(t, b, nil, false, "up", dir, "--plan", plan)
	if r.code != exitcode.Blocked || !strings.Contains(r.stdout+r.stderr, "digitaloceankubernetesnodepool/workers") ||
		!strings.Contains(r.stdout+r.stderr, "is not in the plan") {
		t.Errorf("up --plan with a stack the plan does not hold: exit %d, want 3 naming it\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, c := range b.Calls()[updates:] {
		if strings.HasPrefix(c, "update ") {
			t.Errorf("a refused plan changed a stack: %v", b.Calls()[updates:])
		}
	}
	// Without files, up --plan deploys the plan's own: the cluster, which it holds.
	if r := deployRun(t, b, nil, false, "up", "--plan", plan); r.code != exitcode.OK {
		t.Errorf("up --plan without files: exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
