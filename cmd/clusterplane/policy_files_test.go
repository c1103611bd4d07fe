package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

// poolWarnPolicy warns of a pool above 1 node: it fires on the same file as fleetPolicy's
// small-pools denial.
const poolWarnPolicy = `rules:
  - name: lone-pools
    level: warn
    kinds: [DigitalOceanKubernetesNodePool]
    field: spec.nodeCount
    message: a pool above one node costs more
    expression: spec.nodeCount <= 1
`

func TestEveryPolicyFileGivenAppliesNotOnlyTheLast(t *testing.T) {
	dir := fleet(t)
	pol := writeFiles(t, map[string]string{"a-deny.yaml": fleetPolicy, "b-warn.yaml": poolWarnPolicy})
	deny, warn := filepath.Join(pol, "a-deny.yaml"), filepath.Join(pol, "b-warn.yaml")
	edit(t, dir, "pool.yaml", "nodeCount: 2", "nodeCount: 4")
	for name, args := range map[string][]string{
		"the flag twice": {"--policy", deny, "--policy", warn},
		"a folder":       {"--policy", pol},
	} {
		r := run(t, "", append([]string{"validate", dir}, args...)...)
		if r.code != exitcode.Invalid || !strings.Contains(r.stderr, `denied by policy rule "small-pools"`) {
			t.Errorf("%s: exit %d, want 1 and the first file's denial:\n%s", name, r.code, r.stderr)
		}
		// The warning of the same manifest is said too, although a rule denies it.
		if !strings.Contains(r.stderr, `policy rule "lone-pools"`) {
			t.Errorf("%s: the second file's warning is not said:\n%s", name, r.stderr)
		}
	}
}

func TestARuleNameInTwoPolicyFilesIsRefusedAtItsLine(t *testing.T) {
	dir := fleet(t)
	pol := writeFiles(t, map[string]string{"a.yaml": fleetPolicy, "b.yaml": fleetPolicy})
	r := run(t, "", "validate", "--policy", filepath.Join(pol, "a.yaml"), "--policy", filepath.Join(pol, "b.yaml"), dir)
	want := filepath.Join(pol, "b.yaml") + `:5:17: rule "small-pools": a second rule of this name (the first is at ` + filepath.Join(pol, "a.yaml") + ":5)"
	if r.code != exitcode.Invalid || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, want 1 and %q:\n%s", r.code, want, r.stderr)
	}
}
