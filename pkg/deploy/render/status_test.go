package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
)

// unchecked marks the Drifted condition of the stacks at is NotChecked, as status without
// --drift leaves it.
func unchecked(outcomes []outcome.Outcome, at ...int) []outcome.Outcome {
	for _, i := range at {
		outcomes[i].Report.Conditions[1] = outcome.Condition{Type: "Drifted", Status: "Unknown", Reason: "NotChecked",
			Message: "status reads the backend only: run drift, or status --drift, to compare with the cloud"}
	}
	return outcomes
}

// uncompared makes the stacks at the given indexes ones whose preview of the cloud failed.
func uncompared(outcomes []outcome.Outcome, at ...int) []outcome.Outcome {
	for _, i := range at {
		outcomes[i].Report.Conditions[1] = outcome.Condition{Type: "Drifted", Status: "Unknown", Reason: "PreviewFailed",
			Message: "the cloud could not be compared: 503 Service Unavailable"}
	}
	return outcomes
}

// The table's line of counts says only what status read: a drifted count after a status that
// compared nothing, or could not, would read as a fleet in sync.
// Promise: status-counts-drift-only-where-compared
func TestTheStatusSummaryCountsDriftOnlyWhereStatusComparedTheCloud(t *testing.T) {
	tests := []struct {
		name     string
		outcomes []outcome.Outcome
		want     string
	}{
		{"a status without --drift says drift was not checked and counts no drifted",
			unchecked(statusFleet(t, 3, nil, nil, nil), 0, 1, 2), "3 stacks: 3 ready, 0 not ready, drift not checked (status --drift)\n"},
		{"a status --drift counts the drifted stacks",
			statusFleet(t, 3, []int{1}, nil, nil), "3 stacks: 3 ready, 0 not ready, 1 drifted\n"},
		{"stacks compared and stacks not compared say both",
			unchecked(statusFleet(t, 3, []int{0}, nil, nil), 1, 2), "3 stacks: 3 ready, 0 not ready, 1 drifted, drift not checked for 2 (status --drift)\n"},
		{"a status --drift whose every preview failed counts no drifted",
			uncompared(statusFleet(t, 2, nil, nil, nil), 0, 1), "2 stacks: 2 ready, 0 not ready, drift unknown for 2 (see DRIFTED)\n"},
		{"stacks compared and stacks whose preview failed say both",
			uncompared(statusFleet(t, 3, []int{0}, nil, nil), 2), "3 stacks: 3 ready, 0 not ready, 1 drifted, drift unknown for 1 (see DRIFTED)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := StatusView{Now: now}
			var out bytes.Buffer
			v.Text(&out, v.Filter(tt.outcomes), clouds.Prices)
			lines := strings.SplitAfter(out.String(), "\n")
			if got := lines[len(lines)-2]; got != tt.want {
				t.Errorf("summary %q, want %q\n%s", got, tt.want, out.String())
			}
		})
	}
}

// NODES and COST are what the stack recorded the cloud running; a stack status could not read
// recorded nothing it could show, so its cells say so, with the manifest's figures beside.
func TestAStackStatusCouldNotReadShowsNoNodesOrCostOfItsOwnOnlyTheManifests(t *testing.T) {
	tests := []struct {
		name        string
		outcomes    []outcome.Outcome
		stack       string
		nodes, cost string
	}{
		{"a stack read shows what it recorded", statusFleet(t, 2, nil, nil, nil), "fleet-0001 ", "  2  ", "  $48.00  "},
		{"a stack not read shows a dash with the manifest's figures beside it", statusFleet(t, 2, nil, nil, []int{0}), "fleet-0001 ",
			"  - (manifest 2)  ", "  - (manifest $48.00)  "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := StatusView{Now: now}
			var out bytes.Buffer
			v.Text(&out, v.Filter(tt.outcomes), clouds.Prices)
			row := ""
			for _, line := range strings.Split(out.String(), "\n") {
				if strings.Contains(line, tt.stack) {
					row = line
				}
			}
			if !strings.Contains(row, tt.nodes) || !strings.Contains(row, tt.cost) {
				t.Errorf("row %q: want NODES %q and COST %q\n%s", row, tt.nodes, tt.cost, out.String())
			}
		})
	}
}
