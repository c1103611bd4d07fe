package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

// update rewrites the golden files from what the code prints now: go test ./cmd/clusterplane/
// -run Golden -update, then read the diff before committing it.
var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// golden compares got with testdata/name, the temporary folder dir read as DIR so that the file
// holds no path of one run.
func golden(t *testing.T, name, dir, got string) {
	t.Helper()
	got = strings.ReplaceAll(got, dir, "DIR")
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from what is printed now (run with -update, and read the diff):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestTheMarkdownOfAPreviewShowsEachChangedFieldFromOldToNew(t *testing.T) {
	b := deploytest.New()
	dir := fleet(t)
	deployed(t, b, dir)
	edit(t, dir, "pool.yaml", "nodeCount: 2", "nodeCount: 3")
	r := deployRun(t, b, strings.NewReader(""), false, "preview", dir, "-o", "markdown")
	if r.code != exitcode.OK {
		t.Errorf("preview: exit %d, want 0\n%s", r.code, r.stderr)
	}
	golden(t, "preview.md.golden", dir, r.stdout)
}

func TestTheMarkdownOfADriftListsOnlyTheFieldsThatDifferAndSaysDrifted(t *testing.T) {
	b := deploytest.New()
	dir := fleet(t)
	file := filepath.Join(dir, "cluster.yaml")
	deployed(t, b, file)
	b.Edit("digitaloceankubernetescluster/platform-prod", "digitalocean:index/kubernetesCluster:KubernetesCluster",
		"platform", "tags", []any{"edited-in-the-console"})
	r := deployRun(t, b, strings.NewReader(""), false, "drift", file, "-o", "markdown")
	if r.code != exitcode.Blocked {
		t.Errorf("drift: exit %d, want 3\n%s", r.code, r.stderr)
	}
	for _, noise := range []string{"metadata.", "blocked:", "| blocked"} {
		if strings.Contains(r.stdout, noise) {
			t.Errorf("the drift report says %q:\n%s", noise, r.stdout)
		}
	}
	golden(t, "drift.md.golden", dir, r.stdout)
}

func TestAFailuresCauseSitsInItsRowAndNoWordIsSaidTwice(t *testing.T) {
	const key, cause = "digitaloceankubernetescluster/platform-prod", "POST /v2/kubernetes/clusters: 422 size is unavailable"
	for _, args := range [][]string{{"up", "--yes"}, {"preview", "-o", "markdown"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			b := deploytest.New()
			dir := fleet(t)
			op := map[string]string{"up": "update", "preview": "preview"}[args[0]]
			b.Fail(key, op, &stackstate.EngineError{Command: op, Cause: cause})
			r := deployRun(t, b, strings.NewReader(""), false, append([]string{args[0], dir}, args[1:]...)...)
			if r.code != exitcode.Invalid {
				t.Errorf("exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
			}
			var row string
			for _, line := range strings.Split(r.stdout, "\n") {
				if strings.Contains(line, "platform-prod") && strings.Contains(line, "failed") {
					row = line
				}
			}
			if !strings.Contains(row, "422 size is unavailable") {
				t.Errorf("the failed row does not hold the cause:\n%s", r.stdout)
			}
			if strings.Contains(r.stderr, "422") {
				t.Errorf("the cause is printed apart from the table, on stderr:\n%s", r.stderr)
			}
			for _, doubled := range []string{"skipped: skipped", "failed: failed", "blocked: blocked"} {
				if strings.Contains(r.stdout, doubled) {
					t.Errorf("the report says %q:\n%s", doubled, r.stdout)
				}
			}
		})
	}
}

// Promise: status-exit-codes
func TestStatusExitsNotReadyWhenTheLastUpdateFailed(t *testing.T) {
	b := deploytest.New()
	dir := fleet(t)
	file := filepath.Join(dir, "cluster.yaml")
	deployed(t, b, file)
	if r := deployRun(t, b, strings.NewReader(""), false, "status", file); r.code != exitcode.OK {
		t.Fatalf("status of a deployed stack: exit %d, want 0\n%s%s", r.code, r.stdout, r.stderr)
	}
	b.Fail("digitaloceankubernetescluster/platform-prod", "update", &stackstate.EngineError{Command: "update", Cause: "500"})
	moved := edit(t, dir, "cluster.yaml", "nodeCount: 2", "nodeCount: 3")
	if r := deployRun(t, b, strings.NewReader(""), false, "up", moved, "--yes"); r.code != exitcode.Invalid {
		t.Fatalf("the failing up: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Back at the deployed manifest: only the failed update keeps the stack from being ready.
	edit(t, dir, "cluster.yaml", "nodeCount: 3", "nodeCount: 2")
	r := deployRun(t, b, strings.NewReader(""), false, "status", file)
	if r.code != exitcode.NotReady || !strings.Contains(r.stdout, "Ready=False") {
		t.Errorf("status after a failed up: exit %d, want %d (not ready)\n%s%s", r.code, exitcode.NotReady, r.stdout, r.stderr)
	}
}

func TestAFailureSaysWhatToRunInEveryFormatNotOnlyInTheTable(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			dir := fleet(t)
			file := filepath.Join(dir, "cluster.yaml")
			b := deploytest.New()
			deployed(t, b, file)
			// A killed up left a create pending: the next up refuses, and says how to recover.
			b.Pend("digitaloceankubernetescluster/platform-prod", clusterTypeName, "platform-prod-2")
			r := deployRun(t, b, strings.NewReader(""), false, "up", file, "--yes", "-o", format)
			for _, says := range []string{"--import-pending-create", "--clear-pending-creates", "pulumi cancel"} {
				if !strings.Contains(r.stdout, says) {
					t.Errorf("up -o %s = %d does not say %q:\n%s", format, r.code, says, r.stdout)
				}
			}
		})
	}
}

// In its row, a changed field reads once as what happens to its resource: an update's field
// says no "(update)" after it again, while a field whose effect differs from its resource's
// operation keeps its own word.
func TestAChangedFieldSaysItsEffectOnlyWhereItDiffersFromItsResources(t *testing.T) {
	b := deploytest.New()
	dir := fleet(t)
	deployed(t, b, dir)
	edit(t, dir, "pool.yaml", "nodeCount: 2", "nodeCount: 3")
	r := deployRun(t, b, strings.NewReader(""), false, "preview", dir)
	if r.code != exitcode.OK {
		t.Fatalf("preview: exit %d\n%s", r.code, r.stderr)
	}
	// A fleet's row names the field; -v and one stack list it under the table too.
	if !strings.Contains(r.stdout, "; update spec.nodeCount: 2 → 3;") || strings.Contains(r.stdout, "(update)") {
		t.Errorf("preview says:\n%s\nwant `update spec.nodeCount: 2 → 3` without (update) after it", r.stdout)
	}
}

// A fleet's text lists the stacks that did or would do something and counts the others; --all and
// -v list every stack, and -v adds each one's changes field by field under the table.
func TestAFleetListsOnlyItsStacksThatWouldChangeUnlessAskedForAll(t *testing.T) {
	b := deploytest.New()
	dir := fleet(t)
	deployed(t, b, dir)
	edit(t, dir, "pool.yaml", "nodeCount: 2", "nodeCount: 3")
	tests := []struct {
		flags  []string
		rows   int
		detail bool
	}{
		{nil, 1, false},
		{[]string{"--all"}, 2, false},
		{[]string{"-v"}, 2, true},
	}
	for _, tt := range tests {
		r := deployRun(t, b, strings.NewReader(""), false, append([]string{"preview", dir}, tt.flags...)...)
		rows := 0
		for _, line := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(line, dir) && strings.Contains(line, ".yaml  ") { // a row: the file, then the stack's column
				rows++
			}
		}
		if r.code != exitcode.OK || rows != tt.rows || !strings.Contains(r.stdout, "Stacks: 1 would change, 1 unchanged.") ||
			strings.Contains(r.stdout, "\n  update spec.nodeCount: 2 → 3\n") != tt.detail {
			t.Errorf("preview %v = %d with %d rows, want %d, the summary, field lines %v:\n%s", tt.flags, r.code, rows, tt.rows, tt.detail, r.stdout)
		}
	}
}
