//go:build e2e

package e2e_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

// Issue 33, item 7: a region the cloud opens after the release is deployed through the real
// engine and provider; only the cloud's own list refuses one, at the value's file:line:col.
func TestARegionTheCloudOpenedAfterTheReleaseDeploysAndOneItLacksIsRefusedAtItsValue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.do.Account().SetRegions(append(slices.Clone(fakedo.DefaultRegions), "xyz9")...)
	minimal := withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  deletionProtection: false\n")

	typo := e.write("typo.yaml", strings.Replace(minimal, "region: fra1", "region: fra2", 1))
	want := typo + `:14:11: spec.region: region "fra2" is not offered by DigitalOcean now: did you mean fra1?`
	if r, code := e.clusterplane("preview", typo); code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("preview of a region DigitalOcean lacks: exit %d, want 1 and %q\n%s", code, want, r)
	}

	opened := e.write("opened.yaml", strings.Replace(minimal, "region: fra1", "region: xyz9", 1))
	// Offline the pinned table lacks it: a warning, exit 0.
	if r, code := e.clusterplane("validate", opened); code != 0 || !strings.Contains(r.stdout+r.stderr, `:14:11: warning: spec.region: region "xyz9"`) {
		t.Errorf("validate of a region the table lacks: exit %d, want 0 with a warning\n%s", code, r)
	}
	if r, code := e.clusterplane("up", opened, "--yes"); code != 0 {
		t.Fatalf("up in a region DigitalOcean opened after the release = %d\n%s", code, r)
	}
	clusters := e.do.Clusters()
	if len(clusters) != 1 || clusters[0].RegionSlug != "xyz9" {
		t.Errorf("DigitalOcean holds %+v, want one cluster in xyz9", clusters)
	}
	if r, code := e.clusterplane("destroy", opened, "--yes"); code != 0 {
		t.Errorf("destroy = %d\n%s", code, r)
	}
	e.assertNoWorkspaces()
}
