package module

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/labels"
)

// locals are the values derived from a manifest before anything is created.
type locals struct {
	name          string
	spec          *v1.DigitalOceanKubernetesNodePoolSpec
	tags          []string
	ignoreChanges []string
}

func newLocals(name string, md *sharedv1.CloudResourceMetadata, spec *v1.DigitalOceanKubernetesNodePoolSpec) *locals {
	l := &locals{
		name: name,
		spec: spec,
		tags: labels.Tags(labels.Standard(Kind, md), spec.GetTags()),
	}
	// The autoscaler moves the count; undoing its changes would fight it.
	if spec.GetAutoScale() {
		l.ignoreChanges = append(l.ignoreChanges, "nodeCount")
	}
	return l
}
