package reconcile

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// judge reads a stack's history (newest first) against the object's mark at the version the
// store recorded.
func TestTheStacksHistorySaysWhoseTheStackIs(t *testing.T) {
	o := store.Object{ID: "6f0c4d0e-0000-4000-8000-000000000001", Type: store.NodePool}
	other := store.Object{ID: "6f0c4d0e-0000-4000-8000-000000000002", Type: store.NodePool}
	ours := func(v int) stackstate.Update {
		return stackstate.Update{Operation: "update", Result: "succeeded", Version: v, Message: markOf(o)}
	}
	up := func(v int) stackstate.Update {
		return stackstate.Update{Operation: "update", Result: "succeeded", Version: v, By: "Ann"}
	}
	destroy := func(v int) stackstate.Update {
		return stackstate.Update{Operation: "destroy", Result: "succeeded", Version: v}
	}
	refresh := func(v int) stackstate.Update {
		return stackstate.Update{Operation: "refresh", Result: "succeeded", Version: v}
	}
	for _, tc := range []struct {
		name    string
		version int
		history []stackstate.Update
		want    ownership
		says    string
	}{
		{"the worker's update last is its own", 2, []stackstate.Update{ours(2), up(1)}, own, ""},
		{"a refresh after the worker's update leaves it its own", 1, []stackstate.Update{refresh(2), ours(1)}, own, ""},
		{"another's update after it is a change outside the API, naming who", 1, []stackstate.Update{up(2), ours(1)}, changed, "update 2 by Ann"},
		{"a destroy outside the API, nothing after, leaves it gone", 1, []stackstate.Update{destroy(3), up(2), ours(1)}, gone, "destroyed outside"},
		{"an update after a destroy outside the API is a stack made again", 1, []stackstate.Update{up(3), destroy(2), ours(1)}, lost, "destroyed (destroy 2) and made again"},
		{"a history that starts anew is a stack made again", 2, []stackstate.Update{up(1)}, lost, "made again outside the API"},
		{"a history with more updates since it started anew is a stack made again", 2, []stackstate.Update{up(3), up(2), up(1)}, lost, "made again outside the API"},
		{"the update at its version marked by another object is a stack made again", 1, []stackstate.Update{{Operation: "update", Version: 1, Message: markOf(other)}}, lost, "made again"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := judge(o, "digitaloceankubernetesnodepool/api-fra1-workers", tc.version, tc.history)
			if v.ownership != tc.want || !strings.Contains(v.why, tc.says) {
				t.Errorf("judge = %d %q, want %d saying %q", v.ownership, v.why, tc.want, tc.says)
			}
		})
	}
}

// A check whose report was read before the update its verdict names writes nothing: its
// outputs would be the stack's before a `clusterplane up` that ran beside it.
func TestACheckOutrunByAChangeOutsideTheAPIWritesNothing(t *testing.T) {
	update := func(v int) *stackstate.Update { return &stackstate.Update{Operation: "update", Version: v} }
	report := func(last *stackstate.Update) *outcome.StackStatus { return &outcome.StackStatus{LastUpdate: last} }
	for _, tc := range []struct {
		name   string
		report *outcome.StackStatus
		last   *stackstate.Update
		want   bool
	}{
		{"a report read before the update the verdict names is outrun", report(update(1)), update(2), true},
		{"a report read at the update the verdict names is not", report(update(2)), update(2), false},
		{"a report read after it (a refresh since) is not", report(update(3)), update(2), false},
		{"a verdict naming no update (the stack gone) outruns nothing", report(update(1)), nil, false},
		{"a report of a stack with no history outruns nothing", report(nil), update(2), false},
		{"an update of unknown number outruns nothing", report(update(0)), update(2), false},
		{"no report outruns nothing", nil, update(2), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := outrun(tc.report, verdict{ownership: changed, last: tc.last}); got != tc.want {
				t.Errorf("outrun = %v, want %v", got, tc.want)
			}
		})
	}
}

// A check that could not read the stack says so, and names a change outside the API only once a
// check reads what that change left; a stack destroyed outside has nothing left to read.
// Promise: api-unread-stack-check-failed
func TestACheckThatCouldNotReadTheStackReportsItsFailureNotTheChange(t *testing.T) {
	read := &outcome.StackStatus{LastUpdate: &stackstate.Update{Operation: "update", Version: 2}}
	for _, tc := range []struct {
		name   string
		report *outcome.StackStatus
		owner  ownership
		want   bool
	}{
		{"no report of a stack changed outside the API is unread", nil, changed, true},
		{"no report of a stack made again outside the API is unread", nil, lost, true},
		{"no report of a stack destroyed outside the API is not", nil, gone, false},
		{"a report of a changed stack is not", read, changed, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := unread(tc.report, verdict{ownership: tc.owner}); got != tc.want {
				t.Errorf("unread = %v, want %v", got, tc.want)
			}
		})
	}
}
