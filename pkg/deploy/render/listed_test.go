package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
)

// The text's rows and the pull request comment's table list the same stacks: a reviewer who reads
// one and a person who reads the other must not be told about different stacks.
func TestTheTextAndTheMarkdownListTheSameStacks(t *testing.T) {
	stacks := []struct {
		name   string
		report runreport.StackReport
		listed bool
	}{
		{"a stack that changes nothing is not listed",
			runreport.StackReport{Outcome: outcome.Done, Changes: map[string]int{"same": 2}}, false},
		{"a stack only refreshed is not listed",
			runreport.StackReport{Outcome: outcome.Done, Changes: map[string]int{"same": 1, "refresh": 1}}, false},
		{"a stack left unchanged by the fleet scan is not listed",
			runreport.StackReport{Outcome: outcome.Done, NotRun: true, Verdict: outcome.Unchanged, Reason: deploy.Unchanged}, false},
		{"a stack with an update is listed",
			runreport.StackReport{Outcome: outcome.Done, Changes: map[string]int{"update": 1}}, true},
		{"a stack a policy warns about is listed",
			runreport.StackReport{Outcome: outcome.Done, Changes: map[string]int{"same": 1},
				Policy: []policy.Result{{Rule: "warn-size", Level: policy.Warn, Message: "big"}}}, true},
		{"a failed stack is listed",
			runreport.StackReport{Outcome: outcome.Failed, Error: "boom"}, true},
	}
	for _, command := range []operation.Name{operation.Preview, operation.Up} {
		var r runreport.Report
		r.Command = command
		for i, s := range stacks {
			s.report.File = "f.yaml"
			s.report.Stack = "stack-" + string(rune('a'+i)) + "-x"
			r.Stacks = append(r.Stacks, s.report)
		}
		var text, md bytes.Buffer
		Fleet(&text, r, FleetOptions{})
		if err := Markdown(&md, r); err != nil {
			t.Fatal(err)
		}
		for i, s := range stacks {
			t.Run(string(command)+": "+s.name, func(t *testing.T) {
				stack := r.Stacks[i].Stack
				inText := strings.Contains(text.String(), stack)
				inMarkdown := strings.Contains(md.String(), "`"+stack+"`")
				if inText != s.listed || inMarkdown != s.listed {
					t.Errorf("listed in the text: %v, in the Markdown: %v; want both %v\n--- text\n%s\n--- markdown\n%s",
						inText, inMarkdown, s.listed, text.String(), md.String())
				}
			})
		}
	}
}

// The fleet's monthly cost says "unchanged" only when no stack's cost changes: rows that change
// cost up and down beside a bare "unchanged" read as a mistake; and a figure only when every size
// is priced.
// Promise: fleet-cost-unpriced-never-a-total
func TestTheFleetsCostSaysWhenChangesCancelOut(t *testing.T) {
	priced := func(old, new float64) runreport.StackReport {
		return runreport.StackReport{Outcome: outcome.Done, Changes: map[string]int{"update": 1},
			Cost: &cost.Delta{Old: cost.Estimate{Min: old, Max: old}, New: cost.Estimate{Min: new, Max: new}}}
	}
	// unpriced is a stack whose new size has no known price: the figures leave it out.
	unpriced := func(old, new float64, size string) runreport.StackReport {
		s := priced(old, new)
		s.Cost.New.Unknown = []string{size}
		return s
	}
	tests := []struct {
		name   string
		stacks []runreport.StackReport
		says   string
	}{
		{"no stack changes cost", []runreport.StackReport{priced(24, 24), priced(48, 48)}, "$72.00 → $72.00/month (unchanged)"},
		{"one stack up and one down by as much", []runreport.StackReport{priced(24, 48), priced(48, 24)},
			"$72.00 → $72.00/month (no change in all: 2 stacks up and down)"},
		{"one stack up", []runreport.StackReport{priced(24, 48), priced(48, 48)}, "$72.00 → $96.00/month (+$24.00)"},
		{"a size with no known price leaves the total not known, never $0 unchanged",
			[]runreport.StackReport{unpriced(0, 0, "s-4vcpu-8gb")}, "not known (no known price for s-4vcpu-8gb)"},
		{"a size with no known price beside priced stacks says the priced part as a part",
			[]runreport.StackReport{priced(24, 48), unpriced(96, 96, "s-4vcpu-8gb")},
			"not known (no known price for s-4vcpu-8gb); what is priced: $120.00 → $144.00/month"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fleetCost(runreport.Report{Command: "preview", Stacks: tt.stacks})
			if got != tt.says {
				t.Errorf("fleetCost = %q, want %q", got, tt.says)
			}
		})
	}
}

// The summary's resources speak only for the stacks the run read: a failed stack's (and, in a
// preview or drift, a skipped one's) are not known, never "none to change".
func TestTheSummarysResourcesAreNotKnownForStacksTheRunCouldNotRead(t *testing.T) {
	stack := func(o outcome.Status, changes map[string]int) runreport.StackReport {
		return runreport.StackReport{Outcome: o, Changes: changes}
	}
	failed := stack(outcome.Failed, nil)
	tests := []struct {
		name    string
		command operation.Name
		stacks  []runreport.StackReport
		says    string
	}{
		{"a drift whose every stack failed says nothing of their resources", operation.Drift,
			[]runreport.StackReport{failed, failed, failed, failed, failed, stack(outcome.Skipped, nil)}, "not known for 5 failed, 1 skipped"},
		{"a drift with drifted and failed stacks counts the drifted ones and names the failed", operation.Drift,
			[]runreport.StackReport{stack(outcome.Drifted, map[string]int{"update": 1}), failed, failed}, "1 to update; not known for 2 failed"},
		{"a drift whose stacks all ran and found nothing has none to change", operation.Drift,
			[]runreport.StackReport{stack(outcome.Done, nil)}, "none to change"},
		{"an up's skipped stack changed nothing", operation.Up,
			[]runreport.StackReport{stack(outcome.Done, nil), stack(outcome.Skipped, nil)}, "none changed"},
		{"an up's failed stack may have changed some", operation.Up,
			[]runreport.StackReport{stack(outcome.Done, map[string]int{"update": 2}), failed}, "2 updated; not known for 1 failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resources(runreport.Report{Command: tt.command, Stacks: tt.stacks}); got != tt.says {
				t.Errorf("resources = %q, want %q", got, tt.says)
			}
		})
	}
}
