package render

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/fielddrift"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
)

// A stack's word, in its row and in the summary, is read from what the operation decided (its
// status, verdict and findings), never from its reason: the reason is words for people, and a
// reason that happens to begin like another verdict's must not change what the stack is
// counted as. Each stack below has a reason that reads as another word than its own.
func TestAStacksWordIsReadFromItsVerdictNeverFromItsReason(t *testing.T) {
	same := map[string]int{"same": 2}
	tests := []struct {
		name    string
		command operation.Name
		stack   runreport.StackReport
		want    string
	}{
		{"a stack left out whose reason begins with no drift is not run", operation.Drift,
			runreport.StackReport{Outcome: outcome.Done, NotRun: true, Verdict: outcome.LeftOut, Reason: "no drift: left out"}, NotRun},
		{"a stack left out whose reason is the scan's unchanged is not run", operation.Preview,
			runreport.StackReport{Outcome: outcome.Done, NotRun: true, Verdict: outcome.LeftOut, Reason: deploy.Unchanged}, NotRun},
		{"a stack the scan found unchanged is unchanged whatever its reason says", operation.Preview,
			runreport.StackReport{Outcome: outcome.Done, NotRun: true, Verdict: outcome.Unchanged, Reason: "1 update"}, Unchanged},
		{"a stack that holds nothing is not deployed though its reason begins with no drift", operation.Drift,
			runreport.StackReport{Outcome: outcome.Done, NotRun: true, Verdict: outcome.HoldsNothing, Reason: "no drift"}, NotDeployed},
		{"a destroy that ran is destroyed though its reason begins with not deployed", operation.Destroy,
			runreport.StackReport{Outcome: outcome.Done, Reason: "not deployed: nothing to destroy"}, Destroyed},
		{"a drift that ran is unchanged though its reason is the not deployed one", operation.Drift,
			runreport.StackReport{Outcome: outcome.Done, Changes: same, Reason: fielddrift.NotDeployed}, Unchanged},
		{"a preview that ran is unchanged though its reason begins with not previewed", operation.Preview,
			runreport.StackReport{Outcome: outcome.Done, Changes: same, Reason: "not previewed: it reads stack a/b"}, Unchanged},
		{"a preview not run for a stack it reads is not run though its reason says unchanged", operation.Preview,
			runreport.StackReport{Outcome: outcome.Done, Verdict: outcome.NotPreviewed, Reason: "unchanged since the last up"}, NotRun},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.stack.File, tt.stack.Stack = "f.yaml", "kind/s"
			if got := ResultOf(tt.command, tt.stack); got != tt.want {
				t.Errorf("the stack's word is %q, want %q", got, tt.want)
			}
			r := runreport.Report{Command: tt.command, Stacks: []runreport.StackReport{tt.stack}}
			if summary := FleetSummary(r, 0); !strings.HasPrefix(summary, "Stacks: 1 "+tt.want+".") &&
				!strings.HasPrefix(summary, "Stacks: 1 "+tt.want+" (") {
				t.Errorf("the summary counts the stack otherwise than as %q:\n%s", tt.want, summary)
			}
		})
	}
}
