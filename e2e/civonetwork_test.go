//go:build e2e

package e2e_test

import (
	"regexp"
	"strings"
	"testing"
)

// The civo CLI and dashboard put a cluster given no network into its region's default one; so
// does a manifest without spec.network, through the Civo provider asking Civo for it.
func TestACivoClusterWithoutANetworkJoinsItsRegionsDefaultNetwork(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	manifest := regexp.MustCompile(`(?m)^  # Id of the Civo network.*\n  network:\n    value: .*\n`).
		ReplaceAllString(example(t, "civokubernetescluster/minimal.yaml"), "")
	if strings.Contains(manifest, "network:") {
		t.Fatalf("the example's network was not removed:\n%s", manifest)
	}
	file := e.write("cluster.yaml", withSpec(manifest, "  deletionProtection: false\n"))
	if r, code := e.clusterplane("up", file, "--yes"); code != 0 {
		t.Fatalf("up = %d\n%s", code, r)
	}
	want := e.civo.DefaultNetworkID("fra1")
	clusters := e.civo.Clusters()
	if len(clusters) != 1 || clusters[0].NetworkID != want {
		t.Fatalf("Civo holds %+v, want one cluster in fra1's default network %s", clusters, want)
	}
	firewalls := e.civo.Networking().Firewalls()
	found := false
	for _, fw := range firewalls {
		if fw.ID == clusters[0].FirewallID {
			found = fw.NetworkID == want
		}
	}
	if !found {
		t.Errorf("the cluster's firewall %s is not in the default network %s: %+v", clusters[0].FirewallID, want, firewalls)
	}
}
