package deploytarget

import (
	"context"

	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// Holds is what of the target's cloud resource (its kind's cluster or node pool type) the
// target's stack already holds, "type name", or "" when it holds none or does not exist. A stack
// that holds it was deployed (or adopted) already: adopting into it would take it over twice.
func Holds(ctx context.Context, b stackstate.Backend, t Target) (string, error) {
	resources, err := heldResources(ctx, b, t, t.Stack)
	if err != nil || len(resources) == 0 {
		return "", err
	}
	return string(resources[0].Type) + " " + resources[0].URN.Name(), nil
}

// heldResources are the resources of t's kind's cluster and node pool types that stack of t's
// project holds (none being deleted); none when the stack does not exist.
func heldResources(ctx context.Context, b stackstate.Backend, t Target, stack string) ([]apitype.ResourceV3, error) {
	if t.Effects == nil {
		return nil, nil
	}
	types := map[string]bool{}
	for _, part := range []effects.Role{effects.Cluster, effects.NodePool} {
		if typ := t.Effects.Types[part]; typ != "" {
			types[typ] = true
		}
	}
	key := t.Project + "/" + stack
	s, err := b.Open(ctx, t.Project, stack, nil)
	if errors.Is(err, stackstate.ErrNotDeployed) {
		return nil, nil
	}
	if err != nil {
		return nil, errors.Wrapf(err, "open stack %s", key)
	}
	defer s.Close()
	st, err := s.State(ctx)
	if err != nil {
		return nil, errors.Wrapf(err, "read stack %s", key)
	}
	var out []apitype.ResourceV3
	for _, r := range st.Deployment.Resources {
		if types[string(r.Type)] && !r.Delete {
			out = append(out, r)
		}
	}
	return out, nil
}

// HeldIDs are the cloud ids the stacks of t's project hold in resources of t's cluster and pool
// types, each with the key of the stack that holds it: the resource's id, and CLUSTER_ID:ID where
// the resource names its cluster (a Civo pool's id is its name, unique in its cluster only, and
// discover records it so). None when the backend cannot list stacks.
func HeldIDs(ctx context.Context, b stackstate.Backend, t Target) (map[string]string, error) {
	out := map[string]string{}
	stacks, err := b.Stacks(ctx, t.Project)
	if err != nil {
		return nil, errors.Wrapf(err, "list the stacks of %s", t.Project)
	}
	for _, name := range stacks {
		resources, err := heldResources(ctx, b, t, name)
		if err != nil {
			return nil, err
		}
		for _, r := range resources {
			if r.ID == "" {
				continue
			}
			out[string(r.ID)] = t.Project + "/" + name
			if cluster, _ := r.Outputs["clusterId"].(string); cluster != "" {
				out[cluster+":"+string(r.ID)] = t.Project + "/" + name
			}
		}
	}
	return out, nil
}
