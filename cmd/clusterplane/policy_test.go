package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	validator "github.com/santhosh-tekuri/jsonschema/v6"
)

// fleetPolicy denies a pool above 3 nodes and warns of a cluster outside production; its line 5
// is the deny rule's expression.
const fleetPolicy = `rules:
  - name: small-pools
    field: spec.nodeCount
    message: a pool has at most 3 nodes
    expression: spec.nodeCount <= 3
    kinds: [DigitalOceanKubernetesNodePool]
  - name: growth
    message: a change adds at most $30 a month
    expression: cost.delta.max <= 30 || old == null
  - name: staging-clusters
    level: warn
    kinds: [DigitalOceanKubernetesCluster]
    field: metadata.env
    message: this cluster is production
    expression: metadata.env != "prod"
`

// Promise: policy-deny-refuses-and-names-the-rule
// Promise: policy-denial-exits-1
// Promise: ci-policy-checked-on-review-and-merge
func TestValidateWithAPolicyRefusesADeniedManifestAtItsFieldsLineAndOnlyWarnsOfAWarning(t *testing.T) {
	dir := fleet(t)
	pol := writeFiles(t, map[string]string{"policy.yaml": fleetPolicy})
	policyFile := filepath.Join(pol, "policy.yaml")
	r := run(t, "", "validate", "--policy", policyFile, dir)
	if r.code != exitcode.OK {
		t.Fatalf("a fleet that keeps the deny rule: exit %d\n%s", r.code, r.stderr)
	}
	if want := filepath.Join(dir, "cluster.yaml") + ":11:3: metadata.env: warning: policy rule \"staging-clusters\""; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr does not warn %q:\n%s", want, r.stderr)
	}
	pool := edit(t, dir, "pool.yaml", "nodeCount: 2", "nodeCount: 4")
	for _, env := range []bool{false, true} {
		args := []string{"validate", dir}
		if env {
			t.Setenv(policy.Env, policyFile)
		} else {
			args = append(args, "--policy", policyFile)
		}
		r = run(t, "", args...)
		want := pool + `:10:3: spec.nodeCount: denied by policy rule "small-pools" (` + policyFile + `:5): a pool has at most 3 nodes`
		if r.code != exitcode.Invalid || !strings.Contains(r.stderr, want) {
			t.Errorf("env %t: a pool of 4 nodes: exit %d, want 1 and %q:\n%s", env, r.code, want, r.stderr)
		}
	}
	t.Setenv(policy.Env, "")
	r = run(t, "", "validate", "-o", "json", "--policy", policyFile, pool)
	var verdicts []struct {
		Status string          `json:"status"`
		Policy []policy.Result `json:"policy"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &verdicts); err != nil || len(verdicts) != 1 {
		t.Fatalf("-o json: %v\n%s", err, r.stdout)
	}
	if v := verdicts[0]; v.Status != "invalid" || len(v.Policy) != 1 || v.Policy[0].Rule != "small-pools" || v.Policy[0].Line != 10 {
		t.Errorf("-o json: %+v", v)
	}
}

// Promise: policy-mistake-refused-at-its-place
// Promise: policy-mistake-exits-1
func TestAPolicyWithASyntaxErrorIsRefusedWithItsLineBeforeAnyManifestIsRead(t *testing.T) {
	dir := fleet(t)
	pol := writeFiles(t, map[string]string{"policy.yaml": strings.Replace(fleetPolicy, "spec.nodeCount <= 3", "spec.nodeCount <= (3", 1)})
	policyFile := filepath.Join(pol, "policy.yaml")
	b := deploytest.New()
	for _, args := range [][]string{
		{"validate", dir}, {"diff", filepath.Join(dir, "pool.yaml"), filepath.Join(dir, "pool.yaml")},
		{"preview", dir}, {"up", dir, "--yes"},
	} {
		r := deployRun(t, b, strings.NewReader(""), false, append(args, "--policy", policyFile)...)
		if want := policyFile + `:5:37: rule "small-pools": Syntax error`; r.code != exitcode.Invalid || !strings.HasPrefix(r.stderr, want) {
			t.Errorf("%s: exit %d, want 1 and stderr starting %q:\n%s", args[0], r.code, want, r.stderr)
		}
		if r.stdout != "" {
			t.Errorf("%s printed what it read:\n%s", args[0], r.stdout)
		}
	}
	if calls := b.Calls(); len(calls) > 0 {
		t.Errorf("the backend was read: %v", calls)
	}
}

// Promise: policy-denial-exits-1
func TestDiffWithAPolicyRefusesAChangeThatAddsTooMuchAMonthBeforeTheDiffRuns(t *testing.T) {
	dir := fleet(t)
	pol := writeFiles(t, map[string]string{"policy.yaml": fleetPolicy})
	policyFile := filepath.Join(pol, "policy.yaml")
	old := filepath.Join(writeFiles(t, map[string]string{"old.yaml": readFile(t, filepath.Join(dir, "pool.yaml"))}), "old.yaml")
	// 2 → 3 nodes at $24 adds $24 a month: kept; the diff runs.
	grown := edit(t, dir, "pool.yaml", "nodeCount: 2", "nodeCount: 3")
	r := run(t, "", "diff", "--policy", policyFile, old, grown)
	if r.code != exitcode.OK || !strings.Contains(r.stdout, "nodeCount") {
		t.Errorf("2 → 3 nodes: exit %d, want 0 and the diff\n%s%s", r.code, r.stdout, r.stderr)
	}
	// 2 → 5 nodes adds $72 and breaks the pool size: both said, the diff not run.
	grown = edit(t, dir, "pool.yaml", "nodeCount: 3", "nodeCount: 5")
	r = run(t, "", "diff", "--policy", policyFile, old, grown)
	for _, want := range []string{`denied by policy rule "small-pools"`, grown + `:2:1: denied by policy rule "growth"`} {
		if r.code != exitcode.Invalid || !strings.Contains(r.stderr, want) {
			t.Errorf("2 → 5 nodes: exit %d, want 1 and %q\n%s", r.code, want, r.stderr)
		}
	}
	if r.stdout != "" {
		t.Errorf("the diff ran after a denial:\n%s", r.stdout)
	}
	r = run(t, "", "diff", "-o", "json", "--policy", policyFile, old, grown)
	var out struct {
		Policy []policy.Result `json:"policy"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out.Policy) != 2 || r.code != exitcode.Invalid {
		t.Errorf("-o json: exit %d, %v\n%s", r.code, err, r.stdout)
	}
}

// Promise: policy-denial-exits-1
// Promise: policy-denied-change-never-reaches-the-cloud
// Promise: ci-policy-checked-on-review-and-merge
func TestPreviewAndUpWithAPolicyRunNoStackWhenAManifestIsDeniedAndReportWhy(t *testing.T) {
	doc, err := validator.UnmarshalJSON(bytes.NewReader(runreport.ReportSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := validator.NewCompiler()
	if err := c.AddResource("report.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("report.json")
	if err != nil {
		t.Fatal(err)
	}
	b := deploytest.New()
	dir := fleet(t)
	pol := writeFiles(t, map[string]string{"policy.yaml": fleetPolicy})
	policyFile := filepath.Join(pol, "policy.yaml")
	// Kept: up deploys both, with the cluster's warning in the report.
	r := deployRun(t, b, strings.NewReader(""), false, "up", dir, "--yes", "--policy", policyFile, "-o", "json")
	if r.code != exitcode.OK {
		t.Fatalf("up of a fleet that keeps the policy: exit %d\n%s", r.code, r.stderr)
	}
	var report any
	if err := json.Unmarshal([]byte(r.stdout), &report); err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(report); err != nil {
		t.Errorf("the report does not validate: %#v", err)
	}
	if !strings.Contains(r.stdout, `"rule": "staging-clusters"`) || !strings.Contains(r.stderr, `warning: policy rule "staging-clusters"`) {
		t.Errorf("the warning is not in the report and on stderr:\n%s\n%s", r.stdout, r.stderr)
	}
	calls := len(b.Calls())
	// 2 → 4 nodes breaks both rules against what the stack deployed: nothing runs.
	pool := edit(t, dir, "pool.yaml", "nodeCount: 2", "nodeCount: 4")
	for _, args := range [][]string{{"preview", dir, "-o", "json"}, {"preview", dir, "-o", "markdown"}, {"up", dir, "--yes"}} {
		r := deployRun(t, b, strings.NewReader(""), false, append(args, "--policy", policyFile)...)
		if r.code != exitcode.Invalid {
			t.Errorf("%v: exit %d, want 1\n%s", args, r.code, r.stderr)
		}
		want := pool + `:10:3: spec.nodeCount: denied by policy rule "small-pools"`
		if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, `denied by policy rule "growth"`) {
			t.Errorf("%v: stderr does not say %q and the growth rule:\n%s", args, want, r.stderr)
		}
		switch args[len(args)-1] {
		case "json":
			if err := json.Unmarshal([]byte(r.stdout), &report); err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(report); err != nil {
				t.Errorf("the report does not validate: %#v", err)
			}
			for _, want := range []string{`"outcome": "blocked"`, `"reason": "denied by policy"`, `"outcome": "skipped"`, `"rule": "small-pools"`} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("the JSON report lacks %s:\n%s", want, r.stdout)
				}
			}
		case "markdown":
			for _, want := range []string{"blocked: denied by policy", "- **denied by policy** `small-pools` (" + policyFile + ":5) at `spec.nodeCount` (" + pool + ":10): a pool has at most 3 nodes",
				"- **denied by policy** `growth`"} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("the Markdown report lacks %q:\n%s", want, r.stdout)
				}
			}
		}
	}
	// The policy reads what each stack deployed from the backend (outputs); nothing else runs.
	for _, call := range b.Calls()[calls:] {
		if !strings.HasPrefix(call, "outputs ") {
			t.Errorf("the engine ran after a denial: %s", call)
		}
	}
}
