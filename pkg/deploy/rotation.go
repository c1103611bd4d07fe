package deploy

import (
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
)

// Rotations are the pool rotations the change from the manifest the stack last deployed to input
// asks for, as diff plans them (the pools' rollout blocks allow them); none when the stack
// recorded no manifest.
func Rotations(table *effects.Table, input proto.Message, outputs map[string]Output) ([]diff.Rotation, error) {
	old, err := deployedInput(input, outputs)
	if err != nil || old == nil {
		return nil, err
	}
	result, err := diff.Compare(table, old, input)
	if err != nil {
		return nil, err
	}
	return result.Rotations, nil
}

// RotationError: the manifest asks for a pool rotation, which up does not carry out yet; nothing
// was sent to the engine, which would replace the pool instead.
type RotationError struct {
	Rotations []diff.Rotation
}

func (e *RotationError) Error() string {
	var parts []string
	for _, r := range e.Rotations {
		var steps []string
		for _, s := range r.Steps {
			steps = append(steps, s.Action+" "+s.Pool)
		}
		parts = append(parts, "pool "+r.Name+" ("+strings.Join(r.Changes, ", ")+"): "+strings.Join(steps, ", "))
	}
	return "rotation planned, nothing deployed: " + strings.Join(parts, "; ") + ". up does not carry out rotations yet, " +
		"and the engine alone would replace the pool; clusterplane diff OLD NEW shows each step and its cost"
}

// rotationGate blocks an operation whose manifest asks for a rotation; nil when it asks for none.
func rotationGate(t Target, outputs map[string]Output) (*Outcome, error) {
	rotations, err := Rotations(t.Effects, t.Input, outputs)
	if err != nil || len(rotations) == 0 {
		return nil, err
	}
	return &Outcome{Status: Blocked, Reason: "rotation", Err: &RotationError{Rotations: rotations}}, nil
}
