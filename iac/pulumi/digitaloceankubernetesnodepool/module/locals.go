package module

import (
	"context"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
	"github.com/clusterplane/clusterplane/pkg/manifest/labels"
)

// locals are the values derived from a manifest before anything is created.
type locals struct {
	name          string
	spec          *v1.DigitalOceanKubernetesNodePoolSpec
	tags          []string
	ignoreChanges []string
}

// newLocals derives the locals; ctx is the program's, whose stack mark (stackmark) the tags take.
func newLocals(ctx context.Context, name string, md *sharedv1.CloudResourceMetadata, spec *v1.DigitalOceanKubernetesNodePoolSpec) *locals {
	l := &locals{
		name: name,
		spec: spec,
		tags: Tags(ctx, md, spec),
	}
	// The autoscaler moves the count; undoing its changes would fight it.
	if spec.GetAutoScale() {
		l.ignoreChanges = append(l.ignoreChanges, "nodeCount")
	}
	return l
}

// Tags are the pool's tags as the module sends them: the derived ones, the manifest's, and the
// stack's mark where ctx carries one. A rotation's surge pool takes the same.
func Tags(ctx context.Context, md *sharedv1.CloudResourceMetadata, spec *v1.DigitalOceanKubernetesNodePoolSpec) []string {
	return stackmark.Tags(ctx, labels.Tags(labels.Standard(Kind, md), spec.GetTags()))
}
