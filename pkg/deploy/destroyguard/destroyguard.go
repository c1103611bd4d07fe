// Package destroyguard plans a destroy whole before its first delete: every target's refusal (a
// protected cluster, a rotation under way, a stack other manifests still reference) is read from
// the backend first, and one refusal refuses every target.
package destroyguard

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/rotationrun"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// Guard refuses targets before an operation runs any: their keys and why (pipeline.Request.Guard).
type Guard func(ctx context.Context, b stackstate.Backend, targets []deploytarget.Target) (map[string]error, error)

// New is destroy's guard, planned whole before the first delete: referenced (the stacks
// that manifests beside the files still reference) and what each stack's own records refuse (a
// protected cluster, a rotation under way: Refusals) are asked of every target first, and
// one refusal refuses them all, each of the others saying which stacks held the destroy back. A
// destroy that deleted some stacks and then refused the rest would leave a fleet half gone, and
// the refusal was known before anything was deleted.
func New(referenced Guard) Guard {
	return func(ctx context.Context, b stackstate.Backend, targets []deploytarget.Target) (map[string]error, error) {
		refused := map[string]error{}
		if referenced != nil {
			by, err := referenced(ctx, b, targets)
			if err != nil {
				return nil, err
			}
			for key, err := range by {
				refused[key] = err
			}
		}
		own, err := Refusals(ctx, b, targets)
		if err != nil {
			return nil, err
		}
		for key, err := range own {
			if refused[key] != nil {
				// Every refusal of the stack is said: a protected cluster its pools still
				// reference needs both mended.
				err = &JoinedError{Errs: []error{refused[key], err}}
			}
			refused[key] = err
		}
		if len(refused) == 0 {
			return nil, nil
		}
		held := make([]string, 0, len(refused))
		for key := range refused {
			held = append(held, key)
		}
		sort.Strings(held)
		for _, t := range targets {
			if refused[t.Key()] == nil {
				refused[t.Key()] = &HeldError{By: held}
			}
		}
		return refused, nil
	}
}

// JoinedError is several refusals of one stack's destroy, each said.
type JoinedError struct{ Errs []error }

func (e *JoinedError) Error() string {
	said := make([]string, len(e.Errs))
	for i, err := range e.Errs {
		said[i] = err.Error()
	}
	return strings.Join(said, "; and ")
}

// Unwrap lets errors.As find each refusal.
func (e *JoinedError) Unwrap() []error { return e.Errs }

// Refusal is what the error says after "refused" when its first refusal begins with the word:
// that one's rest, then the others whole.
func (e *JoinedError) Refusal() (string, bool) {
	if len(e.Errs) == 0 {
		return "", false
	}
	first, ok := e.Errs[0].(stackstate.Refusal)
	if !ok {
		return "", false
	}
	rest, ok := first.Refusal()
	if !ok {
		return "", false
	}
	said := []string{rest}
	for _, err := range e.Errs[1:] {
		said = append(said, err.Error())
	}
	return strings.Join(said, "; and "), true
}

// HeldError: a stack that nothing refuses is not destroyed either, since the destroy
// refused others of its targets (By) and runs whole or not at all.
type HeldError struct{ By []string }

func (e *HeldError) Error() string {
	return fmt.Sprintf("not destroyed: the destroy runs whole or not at all, and it refuses %s; nothing was deleted",
		strings.Join(e.By, ", "))
}

// Refusals are the targets whose own records refuse their destroy: a stack holding a
// protected resource (deletionProtection; the engine would refuse it midway) or a pool rotation
// under way (its destroy would leave the surge pool unrecorded). The records are read from the
// backend's storage where it can be (Backend.Records), else through the stack; a stack that does
// not exist has nothing to refuse.
func Refusals(ctx context.Context, b stackstate.Backend, targets []deploytarget.Target) (map[string]error, error) {
	refused := map[string]error{}
	for _, t := range targets {
		st, err := stateOf(ctx, b, t)
		if errors.Is(err, stackstate.ErrNotDeployed) {
			continue
		}
		if err != nil {
			return nil, errors.Wrapf(err, "read stack %s before destroying anything", t.Key())
		}
		if protected := st.Protected(); len(protected) > 0 {
			refused[t.Key()] = &stackstate.ProtectedError{Resources: protected}
			continue
		}
		if rec, err := rotationrun.RecordedRotation(st.Outputs()); err == nil && rec != nil && rec.Phase != rotation.Done {
			refused[t.Key()] = &RotatingError{Pool: rec.Pool, Phase: rec.Phase}
		}
	}
	return refused, nil
}

// RotatingError refuses to destroy a stack while a rotation of one of its pools is under way.
type RotatingError struct {
	Pool  string
	Phase rotation.Phase
}

func (e *RotatingError) Error() string {
	rest, _ := e.Refusal()
	return "refused: " + rest
}

// Refusal is what the error says after "refused: ": the rotation under way, and what to do.
func (e *RotatingError) Refusal() (string, bool) {
	return fmt.Sprintf("a rotation of pool %s is under way (phase %q); run up to finish or roll it back first, or the "+
		"destroy would leave its surge pool unrecorded", e.Pool, e.Phase), true
}

// stateOf reads a target's state: from the backend's storage where it can be, else through the
// stack, opened and closed again.
func stateOf(ctx context.Context, b stackstate.Backend, t deploytarget.Target) (stackstate.State, error) {
	rec, err := b.Records(ctx, t.Project, t.Stack)
	if err == nil {
		return rec.StackState()
	}
	if !errors.Is(err, stackstate.ErrRecordsUnread) {
		return stackstate.State{}, err
	}
	s, err := b.Open(ctx, t.Project, t.Stack, t.Program())
	if err != nil {
		return stackstate.State{}, err
	}
	defer s.Close()
	return s.State(ctx)
}
