package stackstate_test

import (
	"fmt"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// ParsedStates holds at most ParsedStatesMax parsed states, giving up the oldest first: a fleet's
// build change runs every stack, and their parses must not all wait for their ups.
//
// Promise: scan-keeps-parsed-state
func TestParsedStatesHoldABoundedNumberTheOldestGivenUpFirst(t *testing.T) {
	stack := func(i int) string { return fmt.Sprintf("p/s%d", i) }
	keep := func(p *stackstate.ParsedStates, from, n int) {
		for i := from; i < from+n; i++ {
			p.Keep(stack(i), uint64(i), stackstate.State{})
		}
	}
	tests := []struct {
		name string
		// steps keeps and takes what the row needs; held and gone are the stacks Take then finds
		// held, and not.
		steps      func(p *stackstate.ParsedStates)
		held, gone []string
	}{
		{name: "the max are held", steps: func(p *stackstate.ParsedStates) { keep(p, 0, stackstate.ParsedStatesMax) },
			held: []string{stack(0), stack(stackstate.ParsedStatesMax - 1)}},
		{name: "past the max the oldest are given up first", steps: func(p *stackstate.ParsedStates) { keep(p, 0, stackstate.ParsedStatesMax+10) },
			held: []string{stack(10), stack(stackstate.ParsedStatesMax + 9)}, gone: []string{stack(0), stack(9)}},
		{name: "a state taken is not held for a second opening", steps: func(p *stackstate.ParsedStates) {
			keep(p, 1, 1)
			p.Take(stack(1))
		}, gone: []string{stack(1)}},
		{name: "a stack kept, taken and kept again is the newest, not given up in its old place", steps: func(p *stackstate.ParsedStates) {
			keep(p, 0, 1)
			p.Take(stack(0))
			keep(p, 0, 1)
			keep(p, 1, stackstate.ParsedStatesMax-1)
		}, held: []string{stack(0), stack(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p stackstate.ParsedStates
			tt.steps(&p)
			for _, key := range tt.held {
				if _, _, ok := p.Take(key); !ok {
					t.Errorf("%s is not held", key)
				}
			}
			for _, key := range tt.gone {
				if _, _, ok := p.Take(key); ok {
					t.Errorf("%s is held", key)
				}
			}
		})
	}
}
