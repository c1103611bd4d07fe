package autostack

import (
	"slices"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

func TestAnUpdatesMessageReadsAsItWasGiven(t *testing.T) {
	tests := []struct {
		name, recorded, want string
	}{
		{"a message the Automation API quoted loses its quotes", `"clusterplane serve: nodepool 0b1c"`, "clusterplane serve: nodepool 0b1c"},
		{"a quoted message with an escaped quote is unescaped", `"say \"hi\""`, `say "hi"`},
		{"a message the CLI was given bare stays", "fix the pool", "fix the pool"},
		{"no message stays empty", "", ""},
		{"a lone quote is not taken for quoting", `"`, `"`},
		{"quotes around something that is no Go string stay", `"a\qb"`, `"a\qb"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := recordedMessage(tt.recorded); got != tt.want {
				t.Errorf("recordedMessage(%q) = %q, want %q", tt.recorded, got, tt.want)
			}
		})
	}
}

func TestAHistoryWithoutVersionsIsNumberedFromTheOldest(t *testing.T) {
	history := []stackstate.Update{{Operation: "update"}, {Operation: "refresh"}, {Operation: "update"}}
	numberByPlace(history)
	var got []int
	for _, u := range history {
		got = append(got, u.Version)
	}
	if want := []int{3, 2, 1}; !slices.Equal(got, want) {
		t.Errorf("numbered %v, want %v (newest first)", got, want)
	}
}
