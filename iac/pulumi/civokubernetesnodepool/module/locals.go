package module

import (
	"context"
	"maps"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	civopool "github.com/clusterplane/clusterplane/pkg/cloud/civo/pools"
	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
)

// locals are the values derived from a manifest before anything is created.
type locals struct {
	name   string
	spec   *v1.CivoKubernetesNodePoolSpec
	labels map[string]string
}

// newLocals derives the locals; ctx is the program's, whose stack mark (stackmark) the pool's
// labels take.
func newLocals(ctx context.Context, name string, spec *v1.CivoKubernetesNodePoolSpec) *locals {
	return &locals{name: name, spec: spec, labels: Labels(ctx, spec)}
}

// Labels are the pool's node labels as the module sends them: the manifest's, and the stack's
// mark (civopool.StackLabel) where ctx carries one: Civo pools carry no tags. A rotation's new
// pools take the same.
func Labels(ctx context.Context, spec *v1.CivoKubernetesNodePoolSpec) map[string]string {
	m := stackmark.From(ctx)
	if m.IsZero() {
		return spec.GetLabels()
	}
	labels := maps.Clone(spec.GetLabels())
	if labels == nil {
		labels = map[string]string{}
	}
	labels[civopool.StackLabel] = m.Label()
	return labels
}
