package runreport_test

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

// statusOf is a status outcome whose Ready and Drifted conditions are ready and drifted
// ("status/reason").
func statusOf(ready, drifted string) outcome.Outcome {
	cond := func(typ, sr string) outcome.Condition {
		status, reason, _ := strings.Cut(sr, "/")
		return outcome.Condition{Type: typ, Status: status, Reason: outcome.Reason(reason)}
	}
	return outcome.Outcome{Status: outcome.Done, Report: &outcome.StackStatus{
		Conditions: []outcome.Condition{cond("Ready", ready), cond("Drifted", drifted)},
	}}
}

// Promise: exit-code-highest-wins
func TestTheRunsExitCodeIsItsStacksHighestAndAnInterruptionsOverAll(t *testing.T) {
	done := outcome.Outcome{Status: outcome.Done}
	tests := []struct {
		name     string
		outcomes []outcome.Outcome
		want     int
	}{
		{"every stack done", []outcome.Outcome{done, done}, exitcode.OK},
		{"a failure", []outcome.Outcome{done, {Status: outcome.Failed}}, exitcode.Invalid},
		{"a skipped stack", []outcome.Outcome{{Status: outcome.Skipped}}, exitcode.Invalid},
		{"drifted and failed is 3, not 1", []outcome.Outcome{{Status: outcome.Failed}, {Status: outcome.Drifted}}, exitcode.Blocked},
		{"refused and failed is 3, not 1", []outcome.Outcome{{Status: outcome.Blocked}, {Status: outcome.Failed}, done}, exitcode.Blocked},
		{"interrupted is 130 over all", []outcome.Outcome{{Status: outcome.Drifted}, {Status: outcome.Cancelled}, {Status: outcome.Failed}}, exitcode.Interrupted},
		{"status: not ready and another unreadable is 4", []outcome.Outcome{
			statusOf("False/ManifestChanged", "Unknown/NotChecked"), statusOf("True/Deployed", "Unknown/PreviewFailed")}, exitcode.NotReady},
		{"status: one it cannot tell is 1", []outcome.Outcome{
			statusOf("True/Deployed", "False/InSync"), statusOf("True/Deployed", "Unknown/PreviewFailed")}, exitcode.Invalid},
		{"status: drifted is 4", []outcome.Outcome{statusOf("True/Deployed", "True/ChangesPending")}, exitcode.NotReady},
		{"status: all ready", []outcome.Outcome{statusOf("True/Deployed", "False/InSync")}, exitcode.OK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := runreport.ExitCode(tt.outcomes); got != tt.want {
				t.Errorf("ExitCode = %d, want %d", got, tt.want)
			}
		})
	}
}

// Promise: drift-pending-exits-zero-or-three-with-fail-on-pending
// Promise: word-pending
func TestPendingFailsADriftThatFoundOnlyPendingChangesOnlyWhenAsked(t *testing.T) {
	pending := []outcome.FieldDrift{{}}
	tests := []struct {
		name string
		o    outcome.Outcome
		fail bool
		want outcome.Status
	}{
		{"pending, not asked: done (exit 0)", outcome.Outcome{Status: outcome.Done, Pending: pending}, false, outcome.Done},
		{"pending, --fail-on-pending: blocked (exit 3)", outcome.Outcome{Status: outcome.Done, Pending: pending}, true, outcome.Blocked},
		{"nothing pending, --fail-on-pending: done", outcome.Outcome{Status: outcome.Done}, true, outcome.Done},
		{"drifted stays drifted", outcome.Outcome{Status: outcome.Drifted, Pending: pending}, true, outcome.Drifted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runreport.PendingFails(tt.o, tt.fail)
			if got.Status != tt.want {
				t.Errorf("PendingFails = %s, want %s", got.Status, tt.want)
			}
			code := runreport.ExitCode([]outcome.Outcome{got})
			if wantCode := map[outcome.Status]int{outcome.Done: 0, outcome.Blocked: 3, outcome.Drifted: 3}[tt.want]; code != wantCode {
				t.Errorf("exit code %d, want %d", code, wantCode)
			}
		})
	}
}
