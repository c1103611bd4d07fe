package runreport_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
)

// The report carries each outcome's verdict for the text to read its word from, and the JSON
// stays as its schema says: the reason and notRun say the verdict there, no field of its own.
func TestTheReportCarriesTheVerdictAndItsJSONDoesNot(t *testing.T) {
	tests := []struct {
		name string
		o    outcome.Outcome
	}{
		{"a stack the scan found unchanged", outcome.NotRun(outcome.Unchanged, "unchanged since the last up")},
		{"a stack that holds nothing", outcome.NotRun(outcome.HoldsNothing, "not deployed")},
		{"a preview not run", outcome.Outcome{Status: outcome.Done, Verdict: outcome.NotPreviewed, Reason: "not previewed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runreport.NewReport(operation.Preview, []outcome.Outcome{tt.o})
			if got := r.Stacks[0].Verdict; got != tt.o.Verdict {
				t.Errorf("the report's verdict is %q, want %q", got, tt.o.Verdict)
			}
			data, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(strings.ToLower(string(data)), "verdict") {
				t.Errorf("the JSON says the verdict: %s", data)
			}
		})
	}
}
