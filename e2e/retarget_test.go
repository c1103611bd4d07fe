//go:build e2e

package e2e_test

import (
	"strings"
	"testing"
)

// up FILE --stack OTHER with another manifest gave the engine new URNs: "3 create, 3 delete", no
// replacement to it, so preview exited 0 and up deleted OTHER's cluster. On the real engine and
// provider: refused before the engine runs, OTHER's cluster kept; meant (--retarget), preview
// counts it as the replacement it is.
// Promise: stack-of-another-manifest-refused
func TestAnotherManifestUpOnAnotherStackIsRefusedAndItsClusterKept(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod := e.cluster("prod")
	if r, code := e.clusterplane("up", prod, "--yes"); code != 0 {
		t.Fatalf("up of prod = %d: %s", code, r)
	}
	before := e.doCluster("prod")
	dev := e.cluster("dev")

	for _, args := range [][]string{
		{"preview", dev, "--stack", "prod"},
		{"up", dev, "--stack", "prod", "--yes"},
	} {
		r, code := e.clusterplane(args...)
		if code != 3 || !strings.Contains(r.stdout+r.stderr, `metadata.name "prod", the manifest "dev"`) ||
			!strings.Contains(r.stdout+r.stderr, "--retarget") {
			t.Errorf("%s = %d, want refused (3) naming both names: %s", strings.Join(args, " "), code, r)
		}
	}
	if after := e.doCluster("prod"); after.ID != before.ID {
		t.Errorf("prod's cluster is %s after the refused up, want %s kept", after.ID, before.ID)
	}
	if _, ok := e.do.ClusterNamed("dev"); ok {
		t.Error("the refused up created dev's cluster")
	}
	if r, code := e.clusterplane("preview", dev, "--stack", "prod", "--retarget"); code != 3 || !strings.Contains(r.stdout+r.stderr, "retarget") {
		t.Errorf("preview --retarget = %d, want the deletes counted as a replacement (3): %s", code, r)
	}
}
