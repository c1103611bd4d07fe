package stackstate_test

import (
	"fmt"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// Kept holds at most KeptMax parsed states, giving up the oldest first: a fleet's build change
// runs every stack, and their parses must not all wait for their ups.
// Promise: scan-keeps-parsed-state
func TestKeptHoldsABoundedNumberOfParsedStatesTheOldestGivenUpFirst(t *testing.T) {
	var k stackstate.Kept
	for i := range stackstate.KeptMax + 10 {
		k.Keep(fmt.Sprintf("p/s%d", i), uint64(i), stackstate.State{})
	}
	tests := []struct {
		name  string
		stack string
		kept  bool
	}{
		{"the first kept is given up", "p/s0", false},
		{"the tenth is given up", "p/s9", false},
		{"the eleventh is kept", "p/s10", true},
		{"the last is kept", fmt.Sprintf("p/s%d", stackstate.KeptMax+9), true},
		{"one taken already is not kept for a second opening", "p/s10", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, ok := k.Take(tt.stack); ok != tt.kept {
				t.Errorf("kept: %v, want %v", ok, tt.kept)
			}
		})
	}
}
