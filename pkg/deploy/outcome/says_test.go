package outcome

import "testing"

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
