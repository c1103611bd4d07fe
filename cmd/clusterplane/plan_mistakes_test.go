package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

func TestSavePlanToAFolderIsRefusedBeforeThePreviewRuns(t *testing.T) {
	dir := fleet(t)
	b := deploytest.New()
	for _, to := range []string{t.TempDir(), filepath.Join(t.TempDir(), "missing", "plan.json")} {
		r := deployRun(t, b, nil, false, "preview", dir, "--save-plan", to)
		if r.code != exitcode.Usage || !strings.Contains(r.stderr, "--save-plan "+to) {
			t.Errorf("--save-plan %s: exit %d, want %d and the flag named:\n%s", to, r.code, exitcode.Usage, r.stderr)
		}
	}
	if len(b.Calls()) != 0 {
		t.Errorf("the preview ran before the plan's file was refused: %v", b.Calls())
	}
}

func TestUpWithAManifestForAPlanSaysItIsNotAPlanFile(t *testing.T) {
	manifest := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(manifest, []byte("# a cluster\nkind: DigitalOceanKubernetesCluster\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := deployRun(t, deploytest.New(), nil, false, "up", "--plan", manifest)
	if r.code == exitcode.OK || !strings.Contains(r.stderr, "not a plan file written by preview --save-plan") {
		t.Errorf("exit %d, want the file refused as not a plan:\n%s", r.code, r.stderr)
	}
}
