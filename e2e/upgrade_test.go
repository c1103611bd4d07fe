//go:build e2e

package e2e_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/digitalocean/godo"
)

func TestUpgradePlanListsBothStepsAndARemovedAPIInUse(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	k := newKube(t)
	// The cluster runs 1.31.9-do.2, the latest 1.31 the loopback DigitalOcean offers (it takes a
	// minor upgrade from there only); 1.32.2-do.0 and 1.33.1-do.0 are above it, and 1.32 stops
	// serving flowcontrol.apiserver.k8s.io/v1beta3.
	example := strings.Replace(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  name: dev-fra1\n", "  name: dev-fra1\n  env: dev\n", 1)
	example = strings.Replace(example, "kubernetesVersion: 1.31.1-do.5", "kubernetesVersion: 1.31.9-do.2", 1)
	manifest := e.write("cluster.yaml", example)
	if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	id := e.doCluster("dev-fra1").ID
	e.do.SetKubeconfig(id, k.kubeconfig())
	e.do.SetClusterlint(id, []godo.ClusterlintDiagnostic{{CheckName: "bare-pods", Severity: "warning",
		Message: "Avoid using bare pods in clusters", Object: &godo.ClusterlintObject{Kind: "Pod", Name: "debug", Namespace: "default"}}})
	// Applied with kubectl against a 1.31 server, at v1beta3: the server keeps it at v1, and only
	// the last-applied annotation remembers the version its manifest is written in.
	lastApplied := `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1beta3","kind":"FlowSchema","metadata":{"name":"legacy-batch"},` +
		`"spec":{"matchingPrecedence":5000,"priorityLevelConfiguration":{"name":"global-default"}}}`
	k.must("POST", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", map[string]any{
		"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema",
		"metadata": map[string]any{"name": "legacy-batch", "annotations": map[string]any{"kubectl.kubernetes.io/last-applied-configuration": lastApplied}},
		"spec":     map[string]any{"matchingPrecedence": 5000, "priorityLevelConfiguration": map[string]any{"name": "global-default"}},
	})
	goal := e.write("cluster.yaml", strings.Replace(example, "kubernetesVersion: 1.31.9-do.2", "kubernetesVersion: 1.33.1-do.0", 1))

	r, code := e.clusterplane("upgrade", "plan", goal)
	for _, want := range []string{"step 1: 1.31.9-do.2 -> 1.32.2-do.0", "step 2: 1.32.2-do.0 -> 1.33.1-do.0",
		"removed API in use: FlowSchema legacy-batch: flowcontrol.apiserver.k8s.io/v1beta3, removed in 1.32",
		"clusterlint warning bare-pods: Pod default/debug"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("upgrade plan lacks %q: %s", want, r)
		}
	}
	if code != 3 {
		t.Errorf("upgrade plan with a removed API in use = %d, want 3: %s", code, r)
	}
	// The cluster is the one the stack deployed (its cluster_id), not merely one of its name.
	r, _ = e.clusterplane("upgrade", "plan", goal, "-o", "json")
	var plan struct {
		Plans []struct {
			FoundBy string
			Running string
			Steps   []struct{ To string }
			Objects []struct{ Name, APIVersion string }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &plan); err != nil || len(plan.Plans) != 1 || len(plan.Plans[0].Steps) != 2 ||
		len(plan.Plans[0].Objects) != 1 || plan.Plans[0].Objects[0].Name != "legacy-batch" ||
		plan.Plans[0].FoundBy != "stack" {
		t.Errorf("upgrade plan -o json: %v: %s", err, r)
	}
	if r, _ := e.clusterplane("upgrade", "plan", goal, "--write"); strings.Contains(r.stderr, "wrote") {
		t.Errorf("--write wrote a blocked cluster's manifest: %s", r)
	}

	// The team moves the FlowSchema to v1: nothing blocks, and --write takes the first step.
	k.must("DELETE", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/legacy-batch", nil)
	if r, code := e.clusterplane("upgrade", "plan", goal, "--write"); code != 0 || !strings.Contains(r.stderr, "wrote "+goal) {
		t.Fatalf("upgrade plan --write = %d: %s", code, r)
	}
	data, err := os.ReadFile(goal)
	if err != nil {
		t.Fatal(err)
	}
	written := strings.Replace(strings.Replace(example, "kubernetesVersion: 1.31.9-do.2", "kubernetesVersion: 1.32.2-do.0", 1),
		"  env: dev\n", "  env: dev\n  annotations:\n    clusterplane.dev/upgrade-to: \"1.33.1-do.0\"\n", 1)
	if string(data) != written {
		t.Errorf("--write left\n%s\nwant the example, comments and all, with the next step and the goal:\n%s", data, written)
	}
	if r, code := e.clusterplane("up", goal, "--yes"); code != 0 {
		t.Fatalf("up of the first step = %d: %s", code, r)
	}
	if v := e.doCluster("dev-fra1").VersionSlug; v != "1.32.2-do.0" {
		t.Errorf("the cluster runs %s after up, want 1.32.2-do.0", v)
	}
	r, code = e.clusterplane("upgrade", "plan", goal)
	if code != 0 || !strings.Contains(r.stdout, "step 1: 1.32.2-do.0 -> 1.33.1-do.0") || strings.Contains(r.stdout, "step 2") {
		t.Errorf("upgrade plan after the first step = %d, want the next step alone: %s", code, r)
	}
}
