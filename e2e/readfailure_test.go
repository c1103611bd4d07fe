//go:build e2e

package e2e_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
)

// The Civo provider reads a firewall by listing the region's firewalls and takes any error of
// that list for a firewall deleted (resourceFirewallRead, civo/firewall/resource_firewall.go in
// terraform-provider-civo v1.1.4: FindFirewall's answer is nil on every error, and a nil answer
// clears the id). A 503 while an up or a refresh reads the cloud would drop the firewall from the
// stack for good; clusterplane asks Civo itself, finds it still listed, keeps it and says so.
// Promise: failed-read-never-a-deletion
func TestAFirewallReadThatFailsWithA503StaysInTheStackAndTheNextUpIsClean(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// args is the command the firewall list fails under. up runs --deep: the fleet scan,
		// which lists the firewalls too, would otherwise take the fault before the provider.
		args []string
	}{
		{"during up", []string{"up", "--yes", "--deep"}},
		{"during refresh", []string{"refresh"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			e := newEnv(t)
			e.seedExamples()
			manifest := e.write("cluster.yaml", example(t, "civokubernetescluster/minimal.yaml"))
			if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
				t.Fatalf("up = %d: %s", code, r)
			}
			const firewall = "civo:index/firewall:Firewall"
			id := e.stateID(civoClusterStack, firewall)
			if id == "" {
				t.Fatalf("the stack holds no %s after up", firewall)
			}
			e.civo.Inject(fakecloud.Fault{Method: "GET", Path: "/v2/firewalls", Status: http.StatusServiceUnavailable})
			args := append([]string{tt.args[0], manifest}, tt.args[1:]...)
			r, code := e.clusterplane(args...)
			out := r.stdout + r.stderr
			if code != 1 || !strings.Contains(out, "read failed") || !strings.Contains(out, "still lists") || !strings.Contains(out, id) {
				t.Errorf("%s with the firewall list failing = %d, want 1 saying the read failed and Civo still lists %s: %s", tt.args[0], code, id, r)
			}
			if got := e.stateID(civoClusterStack, firewall); got != id {
				t.Errorf("the stack holds firewall %q after the failed read, want %s", got, id)
			}
			// The cloud answers again: the next up finds nothing to do and makes no second firewall.
			r, code = e.clusterplane("up", manifest, "--yes", "--deep")
			if code != 0 || !strings.Contains(r.stdout, "no changes") && !strings.Contains(r.stdout, " same") ||
				strings.Contains(r.stdout+r.stderr, "duplicate") {
				t.Errorf("up after the fault passed = %d, want it clean: %s", code, r)
			}
			if got := e.stateID(civoClusterStack, firewall); got != id {
				t.Errorf("the stack holds firewall %q after the next up, want %s", got, id)
			}
			t.Logf("%s: %s", tt.name, time.Since(start).Round(time.Second))
		})
	}
}

// The Civo provider reads a cluster by its id and takes an error with no answer (a 503) for a
// cluster deleted (resourceKubernetesClusterRead, civo/kubernetes/resource_kubernetes_cluster.go
// in terraform-provider-civo v1.1.4). A preview that reads the cloud would then show the creation
// of a cluster that exists, with nothing said of the failed read: clusterplane asks Civo, finds it
// still listed and fails the command saying the read failed, before any create is planned or sent.
// Promise: preview-never-shows-a-failed-read-as-create
func TestACivoClusterReadThatFailsWithA503IsNeverPreviewedAsACreate(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"preview", "--deep"}, {"drift", "--deep"}, {"status", "--drift", "--deep"}} {
		t.Run(args[0], func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.seedExamples()
			manifest := e.write("cluster.yaml", example(t, "civokubernetescluster/minimal.yaml"))
			if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
				t.Fatalf("up = %d: %s", code, r)
			}
			id := e.stateID(civoClusterStack, "civo:index/kubernetesCluster:KubernetesCluster")
			if id == "" {
				t.Fatal("the stack holds no cluster after up")
			}
			posts := len(e.civo.Requests("POST"))
			e.civo.Inject(fakecloud.Fault{Method: "GET", Path: "/v2/kubernetes/clusters/" + id, Status: http.StatusServiceUnavailable})
			r, code := e.clusterplane(append([]string{args[0], manifest}, args[1:]...)...)
			out := r.stdout + r.stderr
			if code == 0 || code == 3 || !strings.Contains(out, "the read failed") || !strings.Contains(out, "still lists") ||
				!strings.Contains(out, id) || strings.Contains(r.stdout, "would change") || strings.Contains(r.stdout, "drifted") {
				t.Errorf("%s with the cluster's read failing = %d, want it to fail saying the read failed and Civo still lists %s: %s", args[0], code, id, r)
			}
			if n := len(e.civo.Requests("POST")); n != posts {
				t.Errorf("%s sent %d POSTs to Civo", args[0], n-posts)
			}
			if got := e.stateID(civoClusterStack, "civo:index/kubernetesCluster:KubernetesCluster"); got != id {
				t.Errorf("the stack holds cluster %q after the %s, want %s", got, args[0], id)
			}
		})
	}
}

// civoClusterStack is the stack the Civo cluster example deploys to, as the file backend names
// its checkpoint.
const civoClusterStack = "civokubernetescluster/dev-fra1"

// stateID is the id of the resource of type typ in stack's checkpoint (project/stack) as the file
// backend holds it, "" when there is none.
func (e *env) stateID(stack, typ string) string {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join(e.dir, "state", ".pulumi", "stacks", stack+".json"))
	if err != nil {
		e.t.Fatalf("read the checkpoint of %s: %v", stack, err)
	}
	var checkpoint struct {
		Checkpoint struct {
			Latest struct {
				Resources []struct {
					Type string `json:"type"`
					ID   string `json:"id"`
				} `json:"resources"`
			} `json:"latest"`
		} `json:"checkpoint"`
	}
	if err := json.Unmarshal(data, &checkpoint); err != nil {
		e.t.Fatalf("read the checkpoint of %s: %v", stack, err)
	}
	for _, r := range checkpoint.Checkpoint.Latest.Resources {
		if r.Type == typ {
			return r.ID
		}
	}
	return ""
}
