// This file is Civo's node pool API for one cluster as a rotation asks it (pkg/change/rotation's
// Cloud, less the node selector), over pkg/cloud/civo/pools's client. A Civo pool's id is its name, and Civo renames no
// pool: the rotation creates pools of their final names instead (rotation.Decide plans the hops).

package civo

import (
	"context"
	"maps"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	civopool "github.com/clusterplane/clusterplane/pkg/cloud/civo/pools"
)

// Pools is Civo's pool API as a rotation asks it; a pool's id is its name.
type Pools struct {
	Client *civopool.Client
	// New is how the new pools are created, as the kind's module makes the pool: cluster,
	// region, size, count, labels, taints, public IPs. Create sets its id (its name).
	New civopool.Spec
}

// Find is the pool named name when it carries mark as its RotationLabel.
func (p Pools) Find(ctx context.Context, name, mark string) (string, error) {
	st, found, err := p.Client.Get(ctx, p.New.ClusterID, name)
	if err != nil || !found {
		return "", err
	}
	if mark == "" || st.Labels[civopool.RotationLabel] != mark {
		return "", &rotation.ForeignPoolError{Cluster: p.New.ClusterID, Name: name, ID: name}
	}
	return name, nil
}

// Create creates a pool of the manifest's settings named name, labelled with mark, and waits
// until Civo runs its nodes.
func (p Pools) Create(ctx context.Context, name, mark string) (string, error) {
	spec := p.New
	spec.ID = name
	spec.Labels = maps.Clone(spec.Labels)
	if spec.Labels == nil {
		spec.Labels = map[string]string{}
	}
	spec.Labels[civopool.RotationLabel] = mark
	if _, err := p.Client.Create(ctx, spec); err != nil {
		return "", err
	}
	return name, nil
}

// Marked are the cluster's pools labelled with a rotation's mark.
func (p Pools) Marked(ctx context.Context) ([]rotation.MarkedPool, error) {
	all, err := p.Client.List(ctx, p.New.ClusterID)
	if err != nil {
		return nil, err
	}
	var out []rotation.MarkedPool
	for _, st := range all {
		if m, ok := rotation.ParseMark(st.Labels[civopool.RotationLabel]); ok {
			out = append(out, rotation.MarkedPool{ID: st.ID, Name: st.ID, Mark: m})
		}
	}
	return out, nil
}

// Delete deletes the pool and waits until Civo no longer has it; one already gone is no error.
func (p Pools) Delete(ctx context.Context, id string) error {
	return p.Client.Delete(ctx, p.New.ClusterID, id)
}

func (p Pools) Rename(context.Context, string, string) error {
	return errors.New("Civo does not rename node pools: the rotation creates the pool of the manifest's name instead")
}
