package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

// A saved plan holds every stack's steps: preview --save-plan and up --plan run the engine for
// every stack, as --deep does, and leave none out as the fleet scan would (the fake backend's
// records cannot be scanned, so a run that scans says so, and one that does not says nothing).
// Promise: saved-plan-runs-every-stack
func TestASavedPlanIsMadeAndAppliedWithoutTheFleetScan(t *testing.T) {
	const scans = "no fleet scan compares them"
	b := deploytest.New()
	dir := fleet(t)
	if r := deployRun(t, b, nil, false, "up", dir, "--yes"); r.code != exitcode.OK {
		t.Fatalf("up: %d %s", r.code, r.stderr)
	}
	if r := deployRun(t, b, nil, false, "preview", dir); r.code != exitcode.OK || !strings.Contains(r.stderr, scans) {
		t.Fatalf("preview: exit %d, want 0 and the scan's line %q\n%s", r.code, scans, r.stderr)
	}
	edit(t, dir, "pool.yaml", "nodeCount: 2", "nodeCount: 3")
	plan := filepath.Join(t.TempDir(), "plan.json")
	for _, args := range [][]string{{"preview", dir, "--save-plan", plan}, {"up", "--plan", plan}} {
		r := deployRun(t, b, nil, false, args...)
		if r.code != exitcode.OK || strings.Contains(r.stderr, scans) {
			t.Errorf("%s: exit %d, want 0 and no fleet scan\n%s\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
	}
}

// Input refused before any stack is opened (here a pool in another region than its cluster)
// prints no -o json report: exit 1, the problem on stderr; a --report-file is written all the
// same, holding no row.
// Promise: refused-input-prints-no-report
// Promise: report-file-written-whole
func TestInputRefusedBeforeAnyStackPrintsNoReportAndAReportFileOfNoRow(t *testing.T) {
	cluster := frontFile(t, "civokubernetescluster", "production.yaml")
	pool := strings.Replace(frontFile(t, "civokubernetesnodepool", "cluster-by-reference.yaml"), "region: fra1", "region: lon1", 1)
	for _, command := range []string{"preview", "drift", "status"} {
		t.Run(command, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"cluster.yaml": cluster, "pool.yaml": pool})
			file := filepath.Join(t.TempDir(), "fleet.json")
			r := deployRun(t, deploytest.New(), strings.NewReader(""), false, command, dir, "-o", "json", "--report-file", file)
			if r.code != exitcode.Invalid || r.stdout != "" || !strings.Contains(r.stderr, `region "lon1" is not its cluster's`) {
				t.Errorf("exit %d, want 1, no report and the problem on stderr\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if rows := strings.TrimSpace(readFile(t, file)); rows != "[]" {
				t.Errorf("the report file of a refused run holds %q, want no row", rows)
			}
		})
	}
}

// noFileHolds fails the test when a file under dirs holds secret.
func noFileHolds(t *testing.T, secret string, dirs ...string) {
	t.Helper()
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			if err == nil && strings.Contains(string(data), secret) {
				t.Errorf("%s holds a secret that was to stay in memory", path)
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	}
}
