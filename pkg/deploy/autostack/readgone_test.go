package autostack

import (
	"slices"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/auto/events"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
)

// The engine says a read found a resource gone by the outputs event of its step: the old state
// and no new one. In an up that refreshes the step stays a refresh; in a refresh it turns a delete.
func TestTheResultNamesWhatAReadFoundGone(t *testing.T) {
	const urn = "urn:pulumi:dev::p::civo:index/firewall:Firewall::fw"
	old := &apitype.StepEventStateMetadata{URN: urn, ID: "fw-1"}
	tests := []struct {
		name string
		m    apitype.StepEventMetadata
		gone bool
	}{
		{"a refresh step with nothing left is", apitype.StepEventMetadata{Op: apitype.OpRefresh, URN: urn, Old: old}, true},
		{"a delete with nothing left is", apitype.StepEventMetadata{Op: apitype.OpDelete, URN: urn, Old: old}, true},
		{"a refresh step that read the resource is not", apitype.StepEventMetadata{Op: apitype.OpRefresh, URN: urn, Old: old,
			New: &apitype.StepEventStateMetadata{URN: urn, ID: "fw-1"}}, false},
		{"a create is not", apitype.StepEventMetadata{Op: apitype.OpCreate, URN: urn,
			New: &apitype.StepEventStateMetadata{URN: urn, ID: "fw-1"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := collect()
			c.events <- events.EngineEvent{EngineEvent: apitype.EngineEvent{ResOutputsEvent: &apitype.ResOutputsEvent{Metadata: tt.m}}}
			close(c.events)
			if got := slices.Contains(c.wait(nil).ReadGone, urn); got != tt.gone {
				t.Errorf("ReadGone holds the resource: %v, want %v", got, tt.gone)
			}
		})
	}
}
