package deploytarget

import (
	"context"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
	"github.com/clusterplane/clusterplane/pkg/manifest/reference"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

// DeployedRegionMismatches checks, as Files does among the manifests given, that each target
// whose cluster is read from a stack no target deploys is in the region that stack's last up
// recorded: Civo answers 404 at create for a pool in another region than its cluster's, after
// the engine has started. text gives each target's manifest text (by key), for the region's
// line; a referenced stack that does not exist or recorded no manifest is not checked. Each
// referenced stack is read once.
func DeployedRegionMismatches(ctx context.Context, b stackstate.Backend, list kinds.List, targets []Target,
	text func(key string) []byte) ([]error, error) {
	given := map[string]bool{}
	for _, t := range targets {
		given[t.Key()] = true
	}
	var read []reference.Manifest
	clusters := map[string]bool{} // referenced stacks read, by key
	for _, t := range targets {
		spec := protofield.At(apikinds.Target(t.Input).ProtoReflect(), kindfield.TargetSpec)
		from := protofield.At(spec, kindfield.SpecCluster, sharedv1.StringValueOrRefFieldValueFrom)
		if protofield.String(spec, kindfield.SpecRegion) == "" || from == nil {
			continue
		}
		k, ok := list.ByName(protofield.String(from, sharedv1.ValueFromRefFieldKind))
		if !ok {
			continue // validate refuses an unknown kind
		}
		cluster := NewTarget("", k, k.NewStackInput(),
			reference.Stack(protofield.String(from, sharedv1.ValueFromRefFieldName), protofield.String(from, sharedv1.ValueFromRefFieldEnv)))
		if given[cluster.Key()] {
			continue // Files checked it against the manifest given
		}
		if !clusters[cluster.Key()] {
			clusters[cluster.Key()] = true
			old, err := LastDeployed(ctx, b, cluster)
			if err != nil {
				return nil, errors.Wrapf(err, "%s: read the region of its cluster's stack", t.File)
			}
			if old != nil {
				read = append(read, reference.Manifest{File: "the manifest stack " + cluster.Key() + " last deployed", Input: old})
			}
		}
		read = append(read, reference.Manifest{File: t.File, Data: text(t.Key()), Input: t.Input})
	}
	return regionProblems(read), nil
}

// regionProblems are reference.RegionMismatches of manifests, an error per manifest refused.
func regionProblems(manifests []reference.Manifest) []error {
	var out []error
	mismatches := reference.RegionMismatches(manifests)
	for i := range manifests {
		if ps := mismatches[i]; len(ps) > 0 {
			out = append(out, &stackinput.Error{Problems: ps})
		}
	}
	return out
}
