package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

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
