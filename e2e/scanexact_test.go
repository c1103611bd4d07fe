//go:build e2e

package e2e_test

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/digitalocean/godo"
)

// scanExactManifest is a cluster on the 1.31 minor line left to DigitalOcean's auto-upgrade, with
// an autoscaler setting: what the three cases below change behind the stack.
const scanExactManifest = `apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesCluster
metadata:
  name: exact
spec:
  clusterName: exact
  region: fra1
  kubernetesVersion: "1.31"
  autoUpgrade: true
  clusterAutoscaler:
    scaleDownUtilizationThreshold: 0.65
    scaleDownUnneededTime: 10m
  defaultNodePool:
    size: s-2vcpu-4gb
    nodeCount: 2
`

// The fleet scan says what the provider's refresh would, on the real plugin, for three changes it
// once missed: an autoscaler setting removed in the cloud (the answer then has none, which the
// provider reads as an empty list), an auto-upgrade to the next minor (the module leaves patches to
// DigitalOcean, not a minor it then refuses), and a state imported with `pulumi stack import`
// (no history record says what wrote it). For each, drift exits 3 naming the field, as --deep
// does, and up does not leave the stack unrun as unchanged. One stack serves the three in turn.
func TestTheFleetScanFindsWhatItOnceMissed(t *testing.T) {
	t.Parallel()
	start := time.Now()
	e := newEnv(t)
	file := e.write("exact.yaml", scanExactManifest)
	if r, code := e.clusterplane("up", file, "--yes", "-q"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	if r, code := e.clusterplane("drift", file); code != 0 || !strings.Contains(r.stderr, "1 stack as recorded") {
		t.Fatalf("drift of the untouched stack = %d, want 0 from the scan: %s", code, r)
	}
	id := e.doCluster("exact").ID

	steps := []struct {
		name string
		// change changes the cloud or the state behind the stack; field is what drift names.
		change func(t *testing.T)
		field  string
		// upFails: up refuses the stack as it now is (the module's check), else up puts it back.
		upFails string
	}{
		{"an autoscaler setting removed through the cloud's API", func(t *testing.T) {
			body := `{"name":"exact","cluster_autoscaler_configuration":{"scale_down_utilization_threshold":0,"scale_down_unneeded_time":""}}`
			req, _ := http.NewRequest(http.MethodPut, e.do.URL()+"/v2/kubernetes/clusters/"+id, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+doToken)
			req.Header.Set("Content-Type", "application/json")
			if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode >= 300 {
				t.Fatalf("remove the autoscaler setting in the cloud: %v %v", resp, err)
			}
		}, "spec.clusterAutoscaler", ""},
		{"a state edited and imported with pulumi stack import", func(t *testing.T) {
			e.importEdited(t, "organization/digitaloceankubernetescluster/exact", func(cluster map[string]any) {
				for _, props := range []string{"inputs", "outputs"} {
					cluster[props].(map[string]any)["destroyAllAssociatedResources"] = true
				}
			})
		}, "spec.destroyAllAssociatedResources", ""},
		// Last: the up it ends with is refused.
		{"an auto-upgrade to the next minor", func(t *testing.T) {
			e.do.EditCluster(id, func(c *godo.KubernetesCluster) { c.VersionSlug = "1.32.2-do.0" })
		}, "spec.kubernetesVersion", "is older than the version the cluster runs"},
	}
	for _, s := range steps {
		s.change(t)
		for _, args := range [][]string{{"drift", file}, {"drift", file, "--deep"}} {
			r, code := e.clusterplane(args...)
			if code != 3 || !strings.Contains(r.stdout, s.field) || strings.Contains(r.stderr, "1 stack as recorded") {
				t.Errorf("%s: %v = %d, want 3 naming %s: %s", s.name, args, code, s.field, r)
			}
		}
		r, code := e.clusterplane("up", file, "--yes")
		if strings.Contains(r.stdout, "unchanged since the last up") || (code != 0) != (s.upFails != "") ||
			s.upFails != "" && !strings.Contains(r.String(), s.upFails) {
			t.Errorf("%s: up = %d, want it run (failing with %q): %s", s.name, code, s.upFails, r)
		}
	}
	t.Logf("the three cases took %s", time.Since(start).Round(time.Second))
}

// importEdited exports stack's state, edits its DigitalOcean cluster resource with edit, and
// imports it with the Pulumi CLI, as someone mending a state by hand would.
func (e *env) importEdited(t *testing.T, stack string, edit func(cluster map[string]any)) {
	t.Helper()
	dir := e.project("import", "digitaloceankubernetescluster")
	state := dir + "/state.json"
	if r := e.pulumi(dir, nil, "stack", "export", "--stack", stack, "--file", state); r.err != nil {
		t.Fatalf("export: %s", r)
	}
	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	edited := false
	for _, res := range doc["deployment"].(map[string]any)["resources"].([]any) {
		if r := res.(map[string]any); r["type"] == "digitalocean:index/kubernetesCluster:KubernetesCluster" {
			edit(r)
			edited = true
		}
	}
	if !edited {
		t.Fatalf("the state of %s holds no DigitalOcean cluster", stack)
	}
	if data, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(state, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := e.pulumi(dir, nil, "stack", "import", "--stack", stack, "--file", state); r.err != nil {
		t.Fatalf("import: %s", r)
	}
}
