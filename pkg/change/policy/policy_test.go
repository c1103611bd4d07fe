package policy_test

import (
	"strings"
	"testing"

	dopool "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

const pool = `apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesNodePool
metadata:
  name: dev-fra1-workers
  env: prod
spec:
  nodePoolName: workers
  cluster:
    value: b6a1c3d5-e7f9-4a2b-8c4d-6e8f0a1b2c3d
  size: s-4vcpu-8gb
  nodeCount: 2
  labels:
    team: platform
`

// input parses a pool manifest, nodeCount replaced when count is not "".
func input(t *testing.T, count string) policy.Input {
	t.Helper()
	text := pool
	if count != "" {
		text = strings.Replace(text, "nodeCount: 2", "nodeCount: "+count, 1)
	}
	in := &dopool.DigitalOceanKubernetesNodePoolStackInput{}
	if err := stackinput.Parse([]byte(text), "pool.yaml", in); err != nil {
		t.Fatal(err)
	}
	// The prices the callers hand in: the manifest's cloud's table, from its driver.
	prices := digitalocean.Driver{}.Prices()
	return policy.Input{File: "pool.yaml", Data: []byte(text), Manifest: in, Prices: &prices}
}

func mustParse(t *testing.T, text string) *policy.Policy {
	t.Helper()
	p, err := policy.Parse("policy.yaml", []byte(text))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return p
}

// Promise: policy-rule-name-unique
// Promise: policy-mistake-refused-at-its-place
func TestABadPolicyIsRefusedWithTheFileLineAndColumnOfEachMistake(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"a syntax error in a plain expression", `rules:
  - name: region
    message: m
    expression: spec.region ==
`, []string{`policy.yaml:4:31: rule "region": Syntax error`}},
		{"a syntax error in a quoted expression", `rules:
  - name: region
    message: m
    expression: "spec.region == )"
`, []string{`policy.yaml:4:33: rule "region": Syntax error`}},
		{"a syntax error on the second line of a block", `rules:
  - name: size
    message: m
    expression: |
      spec.nodeCount <= 20 &&
        spec.maxNodes <=> 20
`, []string{`policy.yaml:6:25: rule "size": Syntax error`}},
		{"a syntax error on the second line of a folded block", `rules:
  - name: fold
    message: m
    expression: >-
      spec.nodeCount <= 20 &&
      spec.maxNodes <=> 20
`, []string{`policy.yaml:6:23: rule "fold": Syntax error`}},
		{"a name no manifest has", `rules:
  - name: env
    message: m
    expression: manifest.metadata.env == "prod"
`, []string{`policy.yaml:4:17: rule "env": undeclared reference to 'manifest'`}},
		{"an expression that is not true or false", `rules:
  - name: text
    message: m
    expression: '"prod"'
`, []string{`policy.yaml:4:17: rule "text": the expression is a string: it must be true or false`}},
		{"a rule without message and a level of its own", `rules:
  - name: quiet
    level: error
    expression: "true"
`, []string{`policy.yaml:2:5: rule "quiet": needs a message`, `policy.yaml:2:5: rule "quiet": level "error": want deny or warn`}},
		{"a key no rule has", `rules:
  - name: typo
    mesage: m
    expression: "true"
`, []string{`policy.yaml:3:5: unknown key "mesage"`, `policy.yaml:2:5: rule "typo": needs a message`}},
		{"two rules of one name, the second also broken", `rules:
  - name: twice
    message: m
    expression: "true"
  - name: twice
    message: m
    expression: "true"
  - name: other
    message: m
    expression: "true &&"
`, []string{`policy.yaml:5:5: rule "twice": a second rule of this name`, `policy.yaml:10:25: rule "other": Syntax error`}},
		{"no rules", "rules: []\n", []string{"policy.yaml: holds no rules"}},
		{"not YAML", "rules: [\n", []string{"policy.yaml: not valid YAML"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := policy.Parse("policy.yaml", []byte(c.text))
			if err == nil {
				t.Fatal("accepted")
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(c.want) {
				t.Errorf("%d problems, want %d:\n%v", len(lines), len(c.want), err)
			}
			for i, want := range c.want {
				if i >= len(lines) || !strings.HasPrefix(lines[i], want) {
					t.Errorf("problem %d does not start with %q:\n%v", i, want, err)
				}
			}
		})
	}
}

// Promise: policy-deny-refuses-and-names-the-rule
func TestEachRuleIsDeniedOrWarnedAtTheLineOfItsField(t *testing.T) {
	p := mustParse(t, `rules:
  - name: small
    field: spec.nodeCount
    message: at most 5 nodes
    expression: spec.nodeCount <= 5
  - name: labelled
    level: warn
    field: spec.labels.team
    message: the team is platform
    expression: spec.labels.team == "apps"
  - name: clusters-only
    kinds: [DigitalOceanKubernetesCluster]
    message: never evaluated on a pool
    expression: "false"
`)
	for _, c := range []struct {
		count string
		want  []string
	}{
		{"2", []string{`pool.yaml:13:5: spec.labels.team: warning: policy rule "labelled" (policy.yaml:10): the team is platform`}},
		{"6", []string{`pool.yaml:11:3: spec.nodeCount: denied by policy rule "small" (policy.yaml:5): at most 5 nodes`,
			`pool.yaml:13:5: spec.labels.team: warning: policy rule "labelled" (policy.yaml:10): the team is platform`}},
	} {
		results, err := p.Evaluate(input(t, c.count))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range results {
			got = append(got, r.String())
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("nodeCount %s:\n got %q\nwant %q", c.count, got, c.want)
		}
		if want := c.count == "6"; policy.Denied(results) != want {
			t.Errorf("nodeCount %s: denied %t, want %t", c.count, policy.Denied(results), want)
		}
	}
}

func TestARuleSeesTheOldManifestAndTheCostFromTheTable(t *testing.T) {
	p := mustParse(t, `rules:
  - name: growth
    message: adds at most $100 a month
    expression: cost.delta.max <= 100 && cost.monthly.max == cost.monthly.min
  - name: created
    level: warn
    message: a new pool
    expression: old != null
  - name: no-shrink
    message: never fewer nodes
    expression: old == null || spec.nodeCount >= old.spec.nodeCount
  - name: from-the-table
    message: priced offline
    expression: cost.source.contains("table") && cost.date != ""
`)
	rules := func(results []policy.Result) string {
		var out []string
		for _, r := range results {
			out = append(out, r.Rule)
		}
		return strings.Join(out, " ")
	}
	// A create of 2 nodes at $48 adds $96; its old is null.
	in := input(t, "2")
	if got, err := p.Evaluate(in); err != nil || rules(got) != "created" {
		t.Errorf("create of 2 nodes: broke %q (%v), want created", rules(got), err)
	}
	// 2 → 4 adds $96; 2 → 5 adds $144; 2 → 1 shrinks.
	for count, want := range map[string]string{"4": "", "5": "growth", "1": "no-shrink"} {
		in := input(t, count)
		in.Old = input(t, "2").Manifest
		if got, err := p.Evaluate(in); err != nil || rules(got) != want {
			t.Errorf("2 → %s nodes: broke %q (%v), want %q", count, rules(got), err, want)
		}
	}
}

// Promise: policy-deny-never-passes-by-mistake
// Promise: policy-evaluation-bounded
func TestARuleThatCannotBeEvaluatedCountsAsBrokenAndSaysWhy(t *testing.T) {
	p := mustParse(t, `rules:
  - name: missing-field
    message: m
    expression: spec.highlyAvailable
  - name: too-costly
    level: warn
    message: m
    expression: >-
      [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19].all(a,
      [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19].all(b,
      [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19].all(c,
      [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19].all(d,
      [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19].all(e, true)))))
`)
	results, err := p.Evaluate(input(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 2 {
		t.Fatalf("%d results, want both rules broken: %v", len(results), results)
	}
	if r := results[0]; !r.Denied() || !strings.Contains(r.Error, "highlyAvailable") {
		t.Errorf("a field the pool lacks: %s", r)
	}
	if r := results[1]; r.Denied() || !strings.Contains(r.Error, "cost limit") {
		t.Errorf("3.2 million steps: %s", r)
	}
}

func TestLocateFindsAFieldInAManifestAndInAStackInput(t *testing.T) {
	stackInput := "target:\n" + strings.ReplaceAll(strings.TrimSuffix(pool, "\n"), "\n", "\n  ") + "\n"
	stackInput = strings.Replace(stackInput, "apiVersion", "  apiVersion", 1)
	for _, c := range []struct {
		data, path   string
		line, column int
	}{
		{pool, "spec.nodeCount", 11, 3},
		{pool, "spec.cluster.value", 9, 5},
		{pool, "spec.labels.team", 13, 5},
		{pool, "metadata.labels.team", 3, 1}, // no labels in metadata: metadata
		{pool, "spec.maxNodes", 6, 1},        // not written: its parent
		{pool, "kind", 2, 1},
		{stackInput, "spec.nodeCount", 12, 5},
		{"spec:\n  pools:\n    - size: a\n    - size: b\n", "spec.pools[1].size", 4, 7},
		{"not: [yaml", "spec", 0, 0},
	} {
		if line, column := policy.Locate([]byte(c.data), c.path); line != c.line || column != c.column {
			t.Errorf("%s: at %d:%d, want %d:%d", c.path, line, column, c.line, c.column)
		}
	}
}

func TestADenialForCostSaysByHowMuchAndOtherDenialsDoNot(t *testing.T) {
	p := mustParse(t, `rules:
  - name: growth
    message: adds at most $100 a month
    expression: cost.delta.max <= 100
  - name: few-nodes
    message: at most 4 nodes
    expression: spec.nodeCount <= 4
  - name: cost-centre
    message: a cost centre label, and few nodes
    expression: "'cost' in metadata.labels || spec.nodeCount <= 4"
`)
	in := input(t, "6")
	in.Old = input(t, "2").Manifest
	results, err := p.Evaluate(in)
	if err != nil || len(results) != 3 {
		t.Fatalf("2 → 6 nodes: %v, %v; want the three rules broken", results, err)
	}
	tests := []struct {
		name, rule, says string
		saysCost         bool
	}{
		{"a rule that reads cost", "growth", "(cost: +$192.00/month ($96.00 → $288.00/month;", true},
		{"a rule that reads no cost", "few-nodes", "at most 4 nodes", false},
		{"a rule whose text says cost but reads no cost", "cost-centre", "a cost centre label", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range results {
				if r.Rule != tt.rule {
					continue
				}
				denial := (&policy.Error{Results: []policy.Result{r}}).Error()
				for _, text := range []string{r.String(), denial} {
					if !strings.Contains(text, tt.says) || strings.Contains(text, "(cost:") != tt.saysCost {
						t.Errorf("%q: want it to say %q, and the cost %t", text, tt.says, tt.saysCost)
					}
				}
			}
		})
	}
}

// Promise: policy-deny-never-passes-by-mistake
func TestARuleNamingAFieldItsKindLacksIsPointedAtInThePolicyNotTheManifest(t *testing.T) {
	p := mustParse(t, `rules:
  - name: misspelt-in-the-expression
    message: m
    field: spec.nodeCount
    expression: spec.size != "" && spec.nodeCont <= 20
  - name: misspelt-field
    message: m
    field: spec.nodeCont
    expression: spec.nodeCount <= 1
  - name: misspelt-field-of-a-kept-rule
    level: warn
    message: m
    field: spec.labelz.team
    expression: "true"
  - name: an-unwritten-field-the-kind-has
    message: m
    field: spec.autoScale
    expression: spec.minNodes >= 1
  - name: a-map-key-is-the-manifest's
    message: m
    field: spec.labels.tier
    expression: "false"
`)
	results, err := p.Evaluate(input(t, "3"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`policy.yaml:5:41: denied by policy rule "misspelt-in-the-expression" (policy.yaml:5): m (the rule could not be evaluated: ` +
			`DigitalOceanKubernetesNodePool has no field nodeCont: did you mean nodeCount?; the manifest is pool.yaml)`,
		`policy.yaml:8:12: denied by policy rule "misspelt-field" (policy.yaml:9): m (the rule could not be evaluated: ` +
			`its field spec.nodeCont: DigitalOceanKubernetesNodePool has no nodeCont: did you mean nodeCount?; the manifest is pool.yaml)`,
		`policy.yaml:13:12: warning: policy rule "misspelt-field-of-a-kept-rule" (policy.yaml:14): m (the rule could not be evaluated: ` +
			`its field spec.labelz.team: DigitalOceanKubernetesNodePool has no labelz: did you mean labels?; the manifest is pool.yaml)`,
		// minNodes is unset in a pool that does not autoscale: protojson leaves out an optional
		// field's zero, and the rule's has() is what reads it; the manifest is where it is missing.
		`pool.yaml:6:1: spec.autoScale: denied by policy rule "an-unwritten-field-the-kind-has"`,
		`pool.yaml:12:3: spec.labels.tier: denied by policy rule "a-map-key-is-the-manifest's" (policy.yaml:22): m`,
	}
	if len(results) != len(want) {
		t.Fatalf("%d results, want %d: %v", len(results), len(want), results)
	}
	for i, r := range results {
		if !strings.HasPrefix(r.String(), want[i]) {
			t.Errorf("result %d:\n got %s\nwant %s", i, r, want[i])
		}
	}
}
