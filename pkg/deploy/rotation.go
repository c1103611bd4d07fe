package deploy

import (
	"google.golang.org/protobuf/proto"

	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// Rotations are the pool rotations the change from the manifest the stack last deployed to input
// asks for, as diff plans them (the pools' rollout blocks allow them); none when the stack
// recorded no manifest.
func Rotations(table *effects.Table, input proto.Message, outputs map[string]stackstate.Output) ([]rotation.Rotation, error) {
	result, err := deploytarget.SinceDeployed(table, input, outputs)
	if err != nil || result == nil {
		return nil, err
	}
	return result.Rotations, nil
}

// RotationError: the manifest asks for a pool rotation which up does not carry out; nothing
// was sent to the engine, which would replace the pool instead.
type RotationError struct {
	Rotations []rotation.Rotation
}

func (e *RotationError) Error() string {
	return "rotation planned, nothing deployed: " + describeRotations(e.Rotations) + ". up carries out rotations of " +
		"DigitalOcean node pools, DigitalOcean clusters' default pools and Civo node pools only, not of this kind's pools, and the engine alone would " +
		"replace the pool; clusterplane diff OLD NEW shows each step and its cost"
}

// rotationGate blocks an operation whose manifest asks for a rotation up does not carry out (a
// Civo pool, a cluster's default pool); nil when it asks for none. carried are the rotations up
// carries out (rotate.go).
func rotationGate(t deploytarget.Target, outputs map[string]stackstate.Output) (blocked *outcome.Outcome, carried []rotation.Rotation, err error) {
	rotations, err := Rotations(t.Effects, t.Input, outputs)
	if err != nil || len(rotations) == 0 {
		return nil, nil, err
	}
	carried, not := carriedOut(t, rotations)
	if len(not) == 0 {
		return nil, carried, nil
	}
	return &outcome.Outcome{Status: outcome.Blocked, Reason: "rotation", Err: &RotationError{Rotations: not}}, carried, nil
}

// RotatedInstead are the pool rotations up carries out in place of the replacements a preview
// (res) shows: a pool whose size changed is replaced in the engine's view, and up rotates it
// instead (surge pool, drain, delete) when the manifest asks for that. nil when up rotates
// nothing, or when res also replaces something else, which up would still replace.
func RotatedInstead(t deploytarget.Target, res stackstate.Result) []rotation.Rotation {
	blocked, carried, err := rotationGate(t, stackstate.OutputsOf(res.Previous))
	if err != nil || blocked != nil || len(carried) == 0 || !onlyPoolReplaced(res, GuardedType(t.Effects)) {
		return nil
	}
	return carried
}

// replacedBesides are the paths of the changes from the manifest the stack last deployed to
// input that replace something, rotations aside (a change a rotation carries out is a rotate).
func replacedBesides(table *effects.Table, input proto.Message, outputs map[string]stackstate.Output) ([]string, error) {
	result, err := deploytarget.SinceDeployed(table, input, outputs)
	if err != nil || result == nil {
		return nil, err
	}
	var paths []string
	for _, c := range result.Changes {
		if c.Effect == effects.Replace {
			paths = append(paths, c.Path)
		}
	}
	return paths, nil
}
