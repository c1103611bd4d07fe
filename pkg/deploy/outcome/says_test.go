package outcome

import (
	"errors"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

func TestAReasonAndWhatItSaysAfterItsWordAgree(t *testing.T) {
	tests := []struct {
		name         string
		set          func(o *Outcome)
		reason, rest string
		says         Says
	}{
		{"the word alone", func(o *Outcome) { o.SayReason(SaysFirst, "destroyed", "") }, "destroyed", "", SaysFirst},
		{"the word and more", func(o *Outcome) { o.SayReason(SaysFirst, "destroyed, ", "stack removed") }, "destroyed, stack removed", "stack removed", SaysFirst},
		{"the word, then an added clause", func(o *Outcome) {
			o.SayReason(SaysFirst, "cancelled", "")
			o.AddToReason("; ", "the engine finished")
		}, "cancelled; the engine finished", "the engine finished", SaysFirst},
		{"more, then an added clause", func(o *Outcome) {
			o.SayReason(SaysFirst, "skipped: ", "a did not deploy")
			o.AddToReason("; ", "b")
		}, "skipped: a did not deploy; b", "a did not deploy; b", SaysFirst},
		{"a sentence of its own", func(o *Outcome) {
			o.SayReason(SaysItself, "adopted x into y", "")
			o.AddToReason("; ", "z")
		}, "adopted x into y; z", "", SaysItself},
		{"overwritten", func(o *Outcome) {
			o.SayReason(SaysFirst, "failed: ", "x")
			o.SayReason(SaysNot, "timed out after 1m", "")
		}, "timed out after 1m", "", SaysNot},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var o Outcome
			tt.set(&o)
			if o.Reason != tt.reason || o.Rest != tt.rest || o.Says != tt.says {
				t.Errorf("got reason %q, rest %q, says %d; want %q, %q, %d", o.Reason, o.Rest, o.Says, tt.reason, tt.rest, tt.says)
			}
		})
	}
}

func TestARefusalCarriesWhatItsErrorSaysAfterRefused(t *testing.T) {
	tests := []struct {
		name string
		err  error
		says Says
	}{
		{"referenced", &stackstate.ReferencedError{By: []string{"p/a"}}, SaysFirst},
		{"refused changes", &stackstate.RefusedError{Changes: []diff.Change{{Path: "spec.region", Reason: "a new cluster"}}}, SaysFirst},
		{"protected, which does not say the word", &stackstate.ProtectedError{Resources: []string{"c"}}, SaysNot},
		{"plain", errors.New("refused: said in words only"), SaysNot},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Refused(tt.err)
			if o.Status != Blocked || o.Reason != "refused" || o.Err != tt.err || o.ErrSays != tt.says {
				t.Fatalf("got %s %q says %d, want blocked \"refused\" says %d", o.Status, o.Reason, o.ErrSays, tt.says)
			}
			// The rest is what the error's text says after the word and its separator.
			if text := tt.err.Error(); tt.says == SaysFirst && !strings.HasSuffix(text, o.ErrRest) ||
				tt.says == SaysFirst && len(text) != len("refused: ")+len(o.ErrRest) {
				t.Errorf("the error says %q, the rest is %q", text, o.ErrRest)
			}
		})
	}
}
