package outcome_test

import (
	"encoding/json"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
)

// Every result of Pulumi's history but succeeded gives one of the Last reasons, in the words
// scripts read from the JSON report; a result the history does not know reads as failed, so that
// it is never taken for a last update that succeeded.
func TestALastUpdateThatDidNotSucceedGivesALastReasonInItsWireWords(t *testing.T) {
	tests := []struct {
		name   string
		result string
		wire   string
	}{
		{"failed is LastFailed", "failed", "LastFailed"},
		{"in-progress keeps the history's spelling", "in-progress", "LastIn-progress"},
		{"not-started keeps the history's spelling", "not-started", "LastNot-started"},
		{"a result the history does not know reads as failed", "exploded", "LastFailed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reason := outcome.LastResult(tt.result)
			if !reason.LastNotSucceeded() {
				t.Errorf("%s does not say the last update did not succeed", reason)
			}
			data, err := json.Marshal(outcome.Condition{Type: "Ready", Status: "False", Reason: reason})
			if err != nil {
				t.Fatal(err)
			}
			if want := `{"type":"Ready","status":"False","reason":"` + tt.wire + `","message":""}`; string(data) != want {
				t.Errorf("the condition reads %s, want %s", data, want)
			}
		})
	}
}

// Only the Last reasons say the last update did not succeed: a reason is asked by its value,
// and one that merely begins with "Last" is not one of them.
func TestOnlyTheLastReasonsSayTheLastUpdateDidNotSucceed(t *testing.T) {
	tests := []struct {
		name   string
		reason outcome.Reason
		want   bool
	}{
		{"LastFailed does", outcome.LastFailed, true},
		{"LastIn-progress does", outcome.LastInProgress, true},
		{"LastNot-started does", outcome.LastNotStarted, true},
		{"ManifestChanged does not", outcome.ManifestChanged, false},
		{"Deployed does not", outcome.Deployed, false},
		{"a word that only begins with Last does not", outcome.Reason("LastingPeace"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.reason.LastNotSucceeded(); got != tt.want {
				t.Errorf("%s: last not succeeded %v, want %v", tt.reason, got, tt.want)
			}
		})
	}
}
