package rotationrun

import (
	"slices"

	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// Rotations are the pool rotations the change from the manifest the stack last deployed to input
// asks for, as diff plans them (the pools' rollout blocks allow them); none when the stack
// recorded no manifest.
func Rotations(t deploytarget.Target, outputs map[string]stackstate.Output) ([]rotation.Rotation, error) {
	result, err := t.SinceDeployed(outputs)
	if err != nil || result == nil {
		return nil, err
	}
	// Clipped: the diff is shared (deploytarget), and an append must not write into it.
	return slices.Clip(result.Rotations), nil
}

// RotationError: the manifest asks for a pool rotation which up does not carry out; nothing
// was sent to the engine, which would replace the pool instead.
type RotationError struct {
	Rotations []rotation.Rotation
	// Kind is the manifest's kind, and Cloud its cloud as its driver names it ("" when no driver
	// knows it): which pools rotate is the kinds' to say (kinds.Rotate), never a list of clouds
	// written here.
	Kind, Cloud string
}

func (e *RotationError) Error() string {
	where := e.Kind
	if e.Cloud != "" {
		where += " on " + e.Cloud
	}
	return "rotation planned, nothing deployed: " + DescribeRotations(e.Rotations) + ". up carries out a rotation of " +
		"a node pool kind's own pool, or of a cluster kind's default pool, where the kind readies it for its cloud; " +
		where + " readies none of these pools, and the engine alone would " +
		"replace the pool; clusterplane diff OLD NEW shows each step and its cost"
}

// rotationError is the refusal of rotations up does not carry out for t, its cloud named by the
// cloud's driver.
func rotationError(t deploytarget.Target, not []rotation.Rotation) *RotationError {
	e := &RotationError{Rotations: not, Kind: t.Name}
	if d, ok := cloudlist.OfInput(t.Input); ok {
		e.Cloud = d.Env().Name
	}
	return e
}

// RotationGate blocks an operation whose manifest asks for a rotation up does not carry out (a
// pool of a kind without Rotate, a cluster's inline pool other than its default); nil when it asks for none. carried are the rotations up
// carries out (rotate.go).
func RotationGate(t deploytarget.Target, outputs map[string]stackstate.Output) (blocked *outcome.Outcome, carried []rotation.Rotation, err error) {
	rotations, err := Rotations(t, outputs)
	if err != nil || len(rotations) == 0 {
		return nil, nil, err
	}
	carried, not := CarriedOut(t, rotations)
	if len(not) == 0 {
		return nil, carried, nil
	}
	return &outcome.Outcome{Status: outcome.Blocked, Reason: "rotation", Err: rotationError(t, not)}, carried, nil
}

// RotatedInstead are the pool rotations up carries out in place of the replacements a preview
// (res) shows: a pool whose size changed is replaced in the engine's view, and up rotates it
// instead (surge pool, drain, delete) when the manifest asks for that. nil when up rotates
// nothing, or when res also replaces something else, which up would still replace.
func RotatedInstead(t deploytarget.Target, res stackstate.Result) []rotation.Rotation {
	blocked, carried, err := RotationGate(t, stackstate.OutputsOf(res.Previous))
	if err != nil || blocked != nil || len(carried) == 0 || !OnlyPoolReplaced(res, deploytarget.GuardedType(t.Effects)) {
		return nil
	}
	return carried
}

// ReplacedBesides are the paths of the changes from the manifest the stack last deployed to
// input that replace something, rotations aside (a change a rotation carries out is a rotate).
func ReplacedBesides(t deploytarget.Target, outputs map[string]stackstate.Output) ([]string, error) {
	result, err := t.SinceDeployed(outputs)
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
