package deploy

import (
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"strings"
	"testing"
)

func TestAFailedOrCancelledLastOperationSaysWhichCommandToRunAgain(t *testing.T) {
	tests := []struct{ operation, says string }{
		{"update", "the last update failed or was cancelled: run up again"},
		{"destroy", "the last destroy failed or was cancelled: run destroy again"},
	}
	for _, tt := range tests {
		t.Run(tt.operation, func(t *testing.T) {
			ready := readyOf(&stackstate.Update{Operation: tt.operation, Result: "failed"}, &outcome.StackStatus{})
			if ready.Reason != "LastFailed" || !strings.Contains(ready.Message, tt.says) {
				t.Errorf("%s: %s, want LastFailed saying %q", ready.Reason, ready.Message, tt.says)
			}
		})
	}
}

// The state is taken for the cloud as up read it only after an up that succeeded, ran its engine
// with a read of the cloud first, and is still the stack's last update: any other outcome, or
// another operation landing after it, has status read the cloud.
func TestTheStateIsTheCloudOnlyAfterASuccessfulUpThatReadItAndIsStillTheLastUpdate(t *testing.T) {
	read := &outcome.Outcome{Status: outcome.Done, Result: &stackstate.Result{Refreshed: true}}
	updated := &stackstate.Update{Operation: "update", Result: "succeeded"}
	tests := []struct {
		name string
		up   *outcome.Outcome
		last *stackstate.Update
		want bool
	}{
		{"an up that read the cloud, the last update", read, updated, true},
		{"no up", nil, updated, false},
		{"an up that trusted the state", &outcome.Outcome{Status: outcome.Done, Result: &stackstate.Result{}}, updated, false},
		{"an up the fleet scan left alone", &outcome.Outcome{Status: outcome.Done, NotRun: true}, updated, false},
		{"an up that failed", &outcome.Outcome{Status: outcome.Failed, Result: &stackstate.Result{Refreshed: true}}, updated, false},
		{"a refresh since", read, &stackstate.Update{Operation: "refresh", Result: "succeeded"}, false},
		{"a destroy since", read, &stackstate.Update{Operation: "destroy", Result: "succeeded"}, false},
		{"no history", read, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := upRead(tt.up, tt.last); got != tt.want {
				t.Errorf("upRead = %v, want %v", got, tt.want)
			}
		})
	}
}
