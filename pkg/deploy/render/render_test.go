package render

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/deploy"
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
	r := deploy.Report{Summary: map[deploy.Status]int{deploy.Done: 1, deploy.Failed: 1}, Stacks: []deploy.StackReport{
		{File: "a.yaml", Stack: "kind/a", Outcome: deploy.Done, Reason: "1 create"},
		{File: "b.yaml", Stack: "kind/b", Outcome: deploy.Failed, Reason: "failed", Error: strings.Repeat("the cloud's long answer ", 30)},
	}}
	var out strings.Builder
	Table(&out, r)
	for _, line := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
		if !strings.Contains(line, "long answer") && len(line) > 60 {
			t.Errorf("a row without the long cause is %d columns wide:\n%s", len(line), out.String())
		}
	}
}

// Two stacks of one file each have a monthly cost: each cost line says whose it is.
func TestEachCostLineNamesItsStackWhenAFileHoldsSeveral(t *testing.T) {
	r := deploy.Report{Command: "preview", Summary: map[deploy.Status]int{deploy.Done: 2}, Stacks: []deploy.StackReport{
		{File: "fleet.yaml", Stack: "kind/a", Outcome: deploy.Done, Reason: "1 create", Cost: &cost.Delta{Min: 24, Max: 24}},
		{File: "fleet.yaml", Stack: "kind/b", Outcome: deploy.Done, Reason: "1 create", Cost: &cost.Delta{Min: 48, Max: 48}},
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
