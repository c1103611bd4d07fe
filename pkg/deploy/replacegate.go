package deploy

import (
	"context"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/change/replace"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/rotationrun"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// unaskedReplacement stops an up, before the engine changes anything, whose change would replace
// a resource of a manifest the run did not name (UpOptions.AllowReplace): neither --yes nor a
// yes at a terminal stands for a replacement. preview is the engine's plan when the up made one;
// without one (--yes, a saved plan) the effects table tells from the manifest the stack last
// deployed whether a field whose change replaces has changed, and only then is the engine asked,
// whose plan is final (a value the cloud already holds replaces nothing). The fields that replace
// are ones the clouds cannot change in place (a pool's size, a cluster's region), so a
// replacement comes from the manifest, not from the cloud: an unchanged field costs no preview.
// The table's rows are held against the providers' schemas (package effects), which is why its
// word is taken where the stack recorded what it deployed. A stack that holds resources but
// recorded no manifest (a first up that failed before its outputs were written) gives the table
// nothing to compare, so the engine is asked there too.
func (d applying) unaskedReplacement(ctx context.Context, t deploytarget.Target, s stackstate.Stack, st stackstate.State, refresh bool, preview *stackstate.Result, opts UpOptions) *outcome.Outcome {
	if opts.AllowReplace.Allows([]string{t.Name, t.Project}, t.MetadataName()) {
		return nil
	}
	paths, err := rotationrun.ReplacedBesides(t, st.Outputs())
	if err != nil {
		o := failed(err)
		return &o
	}
	if preview == nil {
		if len(paths) == 0 && !unvouched(t, st) {
			return nil
		}
		res, err := s.Preview(ctx, stackstate.Options{Refresh: refresh})
		if err != nil {
			o := failed(err)
			return &o
		}
		preview = &res
	}
	return refusedReplacement(t, *preview, paths)
}

// refusedReplacement is the refusal of a preview res that replaces something, nil when it
// replaces nothing. paths are the manifest fields whose change replaces, where known.
func refusedReplacement(t deploytarget.Target, res stackstate.Result, paths []string) *outcome.Outcome {
	replaced := res.Replaced()
	if len(replaced) == 0 {
		return nil
	}
	err := &replace.UnaskedError{Kind: t.Name, Name: t.MetadataName(), Replaced: replaced, Paths: paths}
	return &outcome.Outcome{Status: outcome.Blocked, Reason: "replaces: " + strings.Join(replaced, ", "), Err: err, Result: &res}
}

// unvouched tells that the stack holds resources the effects table cannot speak for, because the
// stack recorded no manifest to compare the target's with.
func unvouched(t deploytarget.Target, st stackstate.State) bool {
	if len(st.Resources()) == 0 {
		return false
	}
	since, err := t.SinceDeployed(st.Outputs())
	return err == nil && since == nil
}
