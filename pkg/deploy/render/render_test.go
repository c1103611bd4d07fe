package render

import (
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

func TestAChangedValueReadsOldToNewAndASecretOnlyThatItChanged(t *testing.T) {
	tests := []struct {
		old, new any
		text     string
	}{
		{float64(2), float64(3), "2 → 3"},
		{nil, "fra1", `(unset) → "fra1"`},
		{diff.Secret, diff.Secret, "(secret, changed)"},
		{nil, diff.Secret, "(secret, changed)"},
	}
	for _, tt := range tests {
		if got := values(tt.old, tt.new); got != tt.text {
			t.Errorf("values(%v, %v) = %q, want %q", tt.old, tt.new, got, tt.text)
		}
	}
}

// A field whose effect is its resource's operation says no word after it; another keeps its own.
func TestAFieldSaysItsEffectOnlyWhereItDiffersFromItsResourcesOperation(t *testing.T) {
	if got := unlike("update", "update") + "|" + unlike("replace", "refused"); got != "| (refused)" {
		t.Errorf("unlike says %q", got)
	}
}

// newcomer7: one failure's long cause padded every row to 620 columns, the short ones included.
func TestALongResultDoesNotWidenTheOtherRowsOfTheTable(t *testing.T) {
	r := runreport.Report{Summary: map[outcome.Status]int{outcome.Done: 1, outcome.Failed: 1}, Stacks: []runreport.StackReport{
		{File: "a.yaml", Stack: "kind/a", Outcome: outcome.Done, Reason: "1 create"},
		{File: "b.yaml", Stack: "kind/b", Outcome: outcome.Failed, Reason: "failed", Says: outcome.SaysFirst, Error: strings.Repeat("the cloud's long answer ", 30)},
	}}
	var out strings.Builder
	Fleet(&out, r, FleetOptions{All: true})
	for _, line := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
		// The summary line is no row of the table: its length is its own.
		if !strings.Contains(line, "long answer") && !strings.HasPrefix(line, "Stacks:") && len(line) > 60 {
			t.Errorf("a row without the long cause is %d columns wide:\n%s", len(line), out.String())
		}
	}
}

// Two stacks of one file each have a monthly cost: each cost line says whose it is.
func TestEachCostLineNamesItsStackWhenAFileHoldsSeveral(t *testing.T) {
	r := runreport.Report{Command: "preview", Summary: map[outcome.Status]int{outcome.Done: 2}, Stacks: []runreport.StackReport{
		{File: "fleet.yaml", Stack: "kind/a", Outcome: outcome.Done, Reason: "1 create", Cost: &cost.Delta{Min: 24, Max: 24}},
		{File: "fleet.yaml", Stack: "kind/b", Outcome: outcome.Done, Reason: "1 create", Cost: &cost.Delta{Min: 48, Max: 48}},
	}}
	var text, markdown strings.Builder
	Costs(&text, r)
	if err := Markdown(&markdown, r); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, out string
		want      []string
	}{
		{"the text under the table", text.String(), []string{"fleet.yaml (kind/a): monthly cost: +$24.00", "fleet.yaml (kind/b): monthly cost: +$48.00"}},
		{"the Markdown", markdown.String(), []string{"#### `fleet.yaml` (`kind/a`)\n\n- monthly cost: +$24.00", "#### `fleet.yaml` (`kind/b`)\n\n- monthly cost: +$48.00"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, want := range tt.want {
				if !strings.Contains(tt.out, want) {
					t.Errorf("want %q in:\n%s", want, tt.out)
				}
			}
		})
	}
}

// A pool's first up: the engine counts 4 creates, not the default provider its stack reference
// reads through (an internal step); the question's count and its rows must agree.
func TestTheUpQuestionCountsTheRowsItLists(t *testing.T) {
	k, _ := registry.Kinds().ByName("DigitalOceanKubernetesNodePool")
	in := k.NewStackInput()
	text := "apiVersion: digitalocean.clusterplane.dev/v1\nkind: DigitalOceanKubernetesNodePool\nmetadata:\n  name: batch\n" +
		"spec:\n  nodePoolName: batch\n  cluster:\n    value: c-1\n  size: s-2vcpu-4gb\n  nodeCount: 2\n"
	if err := stackinput.Parse([]byte(text), "pool.yaml", in); err != nil {
		t.Fatal(err)
	}
	target := deploytarget.NewTarget("pool.yaml", k, in, "")
	urn := func(typ, name string) string {
		return "urn:pulumi:batch::digitaloceankubernetesnodepool::" + typ + "::" + name
	}
	var steps []stackstate.Step
	for _, s := range [][2]string{{"pulumi:pulumi:Stack", "digitaloceankubernetesnodepool-batch"},
		{"clusterplane:digitalocean:KubernetesNodePool", "batch"}, {"pulumi:providers:digitalocean", "batch"},
		{"pulumi:providers:pulumi", "default"}, {"digitalocean:index/kubernetesNodePool:KubernetesNodePool", "batch"}} {
		steps = append(steps, stackstate.Step{URN: urn(s[0], s[1]), Type: s[0], Name: s[1], Action: "create"})
	}
	plan := UpPlan(target, stackstate.Result{Changes: map[string]int{"create": 4}, Steps: steps}, clouds.Prices)
	rows := strings.Count(plan, "\n  create ")
	if !strings.Contains(plan, "would create 4:") || rows != 4 {
		t.Errorf("the question says create 4 over %d rows, want 4 rows, the default provider left out:\n%s", rows, plan)
	}
}

// An up answered no (or refused, or skipped) deployed nothing: its changes and cost under the
// table are what an up would do, never said as done.
func TestAnUpThatDidNotDeploySaysItsChangesAsWhatItWouldDo(t *testing.T) {
	changes := []runreport.ResourceChange{{Operation: "update", Fields: []runreport.FieldEffect{{Path: "spec.nodeCount", Old: 2.0, New: 3.0, Changed: true}}}}
	putBack := []outcome.FieldDrift{{Field: "spec.tags", Live: []any{"x"}, Manifest: []any{}}}
	tests := []struct {
		name    string
		outcome outcome.Status
		want    []string
		never   []string
	}{
		{"a deployed stack says what it did", outcome.Done,
			[]string{"  update spec.nodeCount: 2 → 3", "  put back spec.tags", "monthly cost: +$24.00"}, []string{"would"}},
		{"a stack not confirmed says what up would have done", outcome.Blocked,
			[]string{"  would update spec.nodeCount: 2 → 3", "  would put back spec.tags", "monthly cost: unchanged, not deployed (up would have made it +$24.00"},
			[]string{"  update spec", "  put back spec"}},
		{"a skipped stack too", outcome.Skipped, []string{"  would update spec.nodeCount"}, []string{"  update spec"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runreport.Report{Command: "up", Stacks: []runreport.StackReport{{File: "pool.yaml", Stack: "kind/p", Outcome: tt.outcome,
				Resources: changes, PutBack: putBack, Cost: &cost.Delta{Min: 24, Max: 24}}}}
			var out strings.Builder
			Changes(&out, r)
			Costs(&out, r)
			for _, want := range tt.want {
				if !strings.Contains(out.String(), want) {
					t.Errorf("want %q in:\n%s", want, out.String())
				}
			}
			for _, never := range tt.never {
				if strings.Contains(out.String(), never) {
					t.Errorf("%q in:\n%s", never, out.String())
				}
			}
		})
	}
}
