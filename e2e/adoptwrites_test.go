//go:build e2e

package e2e_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/civo/civogo"
	"github.com/digitalocean/godo"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
)

// TestAdoptSendsTheCloudsNoWriteButTheOnesTheProvidersCannotImportWithout counts every request
// but a read that the loopback clouds receive while `adopt` takes over the seeded accounts (made
// by doctl, the console and the civo CLI), on the real engine and provider plugins. Adopted
// means untouched: each write allowed here is one the providers cannot import or serve the
// stack without, and it carries back what the cloud already has plus, on DigitalOcean, one tag.
//
//   - DigitalOcean, one per cluster: PUT of the default pool's tags with
//     terraform:default-node-pool added. The provider imports a cluster only when exactly one
//     pool carries that tag: it refuses several untagged pools and tags a lone pool itself
//     (resourceDigitalOceanKubernetesClusterImportState, terraform-provider-digitalocean v2.75.0
//     digitalocean/kubernetes/resource_kubernetes_cluster.go:783-808), and its reads find the
//     default pool by it. The driver's EnsureDefaultPool sends it for a cluster of several pools.
//   - Civo, one per cluster: PUT of the cluster with its own firewall id and region. The module
//     sets write_kubeconfig, so the stack has the kubeconfig the provider otherwise leaves out of
//     its state; an import's state has it false (its default, resource_kubernetes_cluster.go:133-
//     139 in terraform-provider-civo v1.1.4), so the engine follows the import with an update,
//     and resourceKubernetesClusterUpdate sends, for write_kubeconfig alone, the firewall id the
//     cluster has "just to ensure we are not sending an empty config" (lines 448-464). Leaving
//     write_kubeconfig out of the import would only move this PUT to the next up and leave the
//     adopted stack without a kubeconfig.
func TestAdoptSendsTheCloudsNoWriteButTheOnesTheProvidersCannotImportWithout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedAccounts()
	do, civo := filepath.Join("accounts", "digitalocean"), filepath.Join("accounts", "civo")
	for cloud, dir := range map[string]string{"digitalocean": do, "civo": civo} {
		if r, code := e.clusterplane("discover", cloud, "--dir", dir); code != 0 {
			t.Fatalf("discover %s = %d\n%s", cloud, code, r)
		}
	}
	doBefore, civoBefore := e.do.Clusters(), e.civo.Clusters()
	e.do.Reset()
	e.civo.Reset()
	if r, code := e.clusterplane("adopt", do, civo); code != 0 {
		t.Fatalf("adopt = %d, want 0\n%s", code, r)
	}

	// DigitalOcean: each cluster's default pool, its tags as they were and the provider's one.
	checkDigitalOceanAdoptWrites(t, doBefore, adoptWrites(e.do.Requests("")))
	// Civo: each cluster, its own firewall back, nothing else.
	checkCivoAdoptWrites(t, civoBefore, adoptWrites(e.civo.Requests("")))
	for _, before := range civoBefore {
		if now, ok := e.civo.Cluster(before.ID); !ok || civoShape(now) != civoShape(before) {
			t.Errorf("adopt changed Civo cluster %s:\n was %s\n now %s", before.Name, civoShape(before), civoShape(now))
		}
	}
	for _, before := range doBefore {
		if now, ok := e.do.Cluster(before.ID); !ok || doShape(now) != doShape(before) {
			t.Errorf("adopt changed DigitalOcean cluster %s:\n was %s\n now %s", before.Name, doShape(before), doShape(now))
		}
	}
}

// adoptWrites are the requests that may change a cloud, in the order they came.
func adoptWrites(requests []fakecloud.Request) []fakecloud.Request {
	return slices.DeleteFunc(requests, func(r fakecloud.Request) bool {
		return r.Method == http.MethodGet || r.Method == http.MethodHead
	})
}

// checkDigitalOceanAdoptWrites checks that adopt wrote to each DigitalOcean cluster only its
// default pool's tags, as they were plus the provider's one, since the provider cannot import
// without it.
func checkDigitalOceanAdoptWrites(t *testing.T, doBefore []godo.KubernetesCluster, doWrites []fakecloud.Request) {
	t.Helper()
	for _, c := range doBefore {
		var mine []fakecloud.Request
		for _, w := range doWrites {
			if strings.HasPrefix(w.Path, "/v2/kubernetes/clusters/"+c.ID) {
				mine = append(mine, w)
			}
		}
		if len(mine) != 1 {
			t.Errorf("DigitalOcean cluster %s received %d writes, want 1 (the default pool's tag): %v", c.Name, len(mine), mine)
			continue
		}
		w := mine[0]
		var body struct{ Tags []string }
		if err := json.Unmarshal([]byte(w.Body), &body); err != nil {
			t.Fatal(err)
		}
		tagged := false
		for _, p := range c.NodePools {
			if w.Method == http.MethodPut && w.Path == "/v2/kubernetes/clusters/"+c.ID+"/node_pools/"+p.ID {
				tagged = true
				if want := append(slices.Clone(p.Tags), "terraform:default-node-pool"); !slices.Equal(body.Tags, want) {
					t.Errorf("DigitalOcean pool %s of %s tagged %v, want its own tags and the default pool's: %v", p.Name, c.Name, body.Tags, want)
				}
			}
		}
		if !tagged {
			t.Errorf("DigitalOcean cluster %s received %s %s %s, want a PUT of one of its pools' tags", c.Name, w.Method, w.Path, w.Body)
		}
	}
	if len(doWrites) != len(doBefore) {
		t.Errorf("DigitalOcean received %d writes, want one per cluster (%d): %v", len(doWrites), len(doBefore), doWrites)
	}
}

// checkCivoAdoptWrites checks that adopt wrote to each Civo cluster only its own firewall id and
// region, the update write_kubeconfig makes the provider send.
func checkCivoAdoptWrites(t *testing.T, civoBefore []civogo.KubernetesCluster, civoWrites []fakecloud.Request) {
	t.Helper()
	for _, c := range civoBefore {
		var mine []fakecloud.Request
		for _, w := range civoWrites {
			if strings.HasPrefix(w.Path, "/v2/kubernetes/clusters/"+c.ID) {
				mine = append(mine, w)
			}
		}
		if len(mine) != 1 || mine[0].Method != http.MethodPut || mine[0].Path != "/v2/kubernetes/clusters/"+c.ID {
			t.Errorf("Civo cluster %s received %v, want one PUT of the cluster (write_kubeconfig's update)", c.Name, mine)
			continue
		}
		var body map[string]any
		if err := json.Unmarshal([]byte(mine[0].Body), &body); err != nil {
			t.Fatal(err)
		}
		if len(body) != 2 || body["firewall_id"] != c.FirewallID || body["region"] == nil {
			t.Errorf("Civo cluster %s received %s, want only its own firewall id %s and its region", c.Name, mine[0].Body, c.FirewallID)
		}
	}
	if len(civoWrites) != len(civoBefore) {
		t.Errorf("Civo received %d writes, want one per cluster (%d): %v", len(civoWrites), len(civoBefore), civoWrites)
	}
}
