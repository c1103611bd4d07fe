package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

// The saved plan through the command, over the fake backend: e2e/plans_test.go runs it on the
// real engine and providers.

// Promise: up-plan-applies-whole-or-nothing
// Promise: architecture-pipeline-refuses-before-the-queue
func TestASavedPlanOfAFleetAppliesWholeOrNotAtAll(t *testing.T) {
	tests := []struct {
		name string
		// between edits the fleet's folder after the review; it returns what the apply must say.
		between func(t *testing.T, dir string, b *deploytest.Backend) []string
		code    int
	}{
		{"an unchanged world applies", func(t *testing.T, dir string, b *deploytest.Backend) []string {
			return []string{"Stacks: 1 changed, 1 unchanged."}
		}, exitcode.OK},
		{"a pool's edit refuses the cluster too", func(t *testing.T, dir string, b *deploytest.Backend) []string {
			edit(t, dir, "pool.yaml", "nodeCount: 3", "nodeCount: 4")
			return []string{"pool.yaml is not the manifest reviewed", "not applied: the plan no longer holds for digitaloceankubernetesnodepool/workers"}
		}, exitcode.Blocked},
		{"another operator's up refuses it", func(t *testing.T, dir string, b *deploytest.Backend) []string {
			b.UpdateByAnotherOperator("digitaloceankubernetescluster/platform-prod")
			return []string{"another update landed on the stack since the plan"}
		}, exitcode.Blocked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := deploytest.New()
			dir := fleet(t)
			if r := deployRun(t, b, nil, false, "up", dir, "--yes"); r.code != exitcode.OK {
				t.Fatalf("up: %d %s", r.code, r.stderr)
			}
			edit(t, dir, "pool.yaml", "nodeCount: 2", "nodeCount: 3")
			plan := filepath.Join(t.TempDir(), "plan.json")
			if r := deployRun(t, b, nil, false, "preview", dir, "--save-plan", plan); r.code != exitcode.OK {
				t.Fatalf("preview --save-plan: %d %s %s", r.code, r.stdout, r.stderr)
			}
			updates := len(b.Calls())
			says := tt.between(t, dir, b)
			r := deployRun(t, b, nil, false, "up", "--plan", plan)
			if r.code != tt.code {
				t.Fatalf("up --plan: exit %d, want %d\n%s\n%s", r.code, tt.code, r.stdout, r.stderr)
			}
			for _, s := range says {
				if !strings.Contains(r.stdout+r.stderr, s) {
					t.Errorf("up --plan does not say %q:\n%s\n%s", s, r.stdout, r.stderr)
				}
			}
			for _, c := range b.Calls()[updates:] {
				if strings.HasPrefix(c, "update ") && tt.code != exitcode.OK {
					t.Errorf("a refused plan changed a stack: %v", b.Calls()[updates:])
				}
			}
		})
	}
}

func TestUpWithAPlanThatDoesNotExistOrWithoutFilesIsRefused(t *testing.T) {
	b := deploytest.New()
	if r := deployRun(t, b, nil, false, "up", "--plan", filepath.Join(t.TempDir(), "none.json")); r.code != exitcode.Invalid ||
		!strings.Contains(r.stderr, "read the plan") {
		t.Errorf("a missing plan: %d %s", r.code, r.stderr)
	}
	if r := deployRun(t, b, nil, false, "up"); r.code != exitcode.Usage {
		t.Errorf("up without files or plan: %d %s", r.code, r.stderr)
	}
}
