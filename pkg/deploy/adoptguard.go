package deploy

import (
	"context"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/pkg/errors"
)

// AdoptIDs are the cloud ids to adopt, by target key: each manifest's annotation, or the id given
// (adopt --id) for the one manifest. A manifest without an id, or whose annotation the id given
// contradicts, refuses the whole run before anything is adopted: a fleet half adopted is harder
// to reason about.
func AdoptIDs(targets []deploytarget.Target, given string) (map[string]string, error) {
	if given != "" && len(targets) > 1 {
		return nil, errors.Errorf("--id is the cloud id of one manifest, and %d were given: record each one's id in its "+
			"metadata.annotations[%q] instead", len(targets), deploytarget.CloudIDAnnotation)
	}
	ids := map[string]string{}
	var missing []string
	for _, t := range targets {
		recorded := deploytarget.CloudID(t.Input)
		switch {
		case given != "" && recorded != "" && recorded != given:
			return nil, errors.Errorf("refused, nothing adopted: %s records the cloud id %s (metadata.annotations[%q]) and --id "+
				"says %s; correct the one that is wrong", t.File, recorded, deploytarget.CloudIDAnnotation, given)
		case given != "":
			ids[t.Key()] = given
		case recorded != "":
			ids[t.Key()] = recorded
		default:
			missing = append(missing, t.File+" ("+t.Key()+")")
		}
	}
	if len(missing) > 0 {
		return nil, errors.Errorf("refused, nothing adopted: no cloud id for %s; record it in metadata.annotations[%q] "+
			"(clusterplane discover writes it), or give --id with one manifest", strings.Join(missing, ", "), deploytarget.CloudIDAnnotation)
	}
	return ids, nil
}

// AlreadyManaged refuses, before the engine runs, the manifests whose stack already holds their
// cluster or pool: clusterplane deployed (or adopted) it, and importing it again would take the
// stack over a second time, its manifest replaced by the one given. It refuses too a manifest
// whose cloud id (ids, by target key) another stack of its kind holds, as a pool clusterplane
// deployed on a cluster made elsewhere, which discover writes again under the cloud's names:
// two stacks would hold one pool, and destroying either would delete it under the other.
func AlreadyManaged(ctx context.Context, b stackstate.Backend, targets []deploytarget.Target, ids map[string]string) error {
	var managed []string
	holders := map[string]map[string]string{} // by project: the stack key holding each cloud id
	for _, t := range targets {
		held, err := deploytarget.Holds(ctx, b, t)
		if err != nil {
			return err
		}
		if held != "" {
			managed = append(managed, t.File+": already managed by stack "+t.Key()+" (it holds "+held+"); nothing to adopt")
			continue
		}
		id := ids[t.Key()]
		if id == "" {
			continue
		}
		if _, ok := holders[t.Project]; !ok {
			if holders[t.Project], err = deploytarget.HeldIDs(ctx, b, t); err != nil {
				return err
			}
		}
		if other := holders[t.Project][id]; other != "" && other != t.Key() {
			managed = append(managed, t.File+": "+id+" is already managed by stack "+other+"; nothing to adopt (its manifest "+
				"deploys it: keep that one, and delete this file)")
		}
	}
	if len(managed) > 0 {
		// Each line says why and what to do: the run adopted nothing, and says no more.
		return errors.Errorf("refused, nothing adopted:\n  %s", strings.Join(managed, "\n  "))
	}
	return nil
}
