package fielddrift

import (
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// A property the provider never reads back differs from the state only when something other than
// the cloud set the state: an adoption took the resource over as the cloud had it (pending: the
// next up sets it), or the state was edited by hand and imported (drift: the cloud and the state
// disagree, and no manifest edit explains it).
func TestANeverReadBackPropertyIsPendingOnlyAfterAnAdoption(t *testing.T) {
	target := deploytarget.Target{Kind: kinds.Kind{Effects: &effects.Table{NeverReadBack: map[string]bool{"tags": true}}}}
	res := stackstate.Result{Steps: []stackstate.Step{{
		Type: "test:index:Cluster", Name: "c", Action: "update", Paths: []string{"tags[0]"},
		Old:  map[string]any{"tags": []any{"team:a"}},
		New:  map[string]any{"tags": []any{"team:b"}},
		Live: map[string]any{"tags": []any{"team:a"}},
	}}}
	for _, c := range []struct {
		name                string
		left                func() []string
		wantDrift, wantPend int
	}{
		{"the last update was no adoption: drift", func() []string { return nil }, 1, 0},
		{"no adoption could be read: drift", nil, 1, 0},
		{"the last update was an adoption that left nothing named: pending", func() []string { return []string{} }, 0, 1},
		{"the last update was an adoption that left another field: pending", func() []string { return []string{"spec.other"} }, 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			drifted, pending := split(target, res, c.left)
			if len(drifted) != c.wantDrift || len(pending) != c.wantPend {
				t.Fatalf("drifted %v, pending %v; want %d drifted, %d pending", drifted, pending, c.wantDrift, c.wantPend)
			}
		})
	}
}
