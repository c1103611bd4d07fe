package module

import (
	"context"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
	"github.com/clusterplane/clusterplane/pkg/manifest/labels"
)

const (
	// DefaultNodePoolName names the default pool when the spec leaves it empty.
	DefaultNodePoolName = "default"
	// DefaultMaintenanceDay and DefaultMaintenanceStart are the maintenance window sent when the
	// spec has none (doeffects.DigitalOceanDefaultMaintenanceWindow says it in words).
	DefaultMaintenanceDay   = "any"
	DefaultMaintenanceStart = "00:00"
)

// locals are the values derived from a manifest before anything is created.
type locals struct {
	name          string
	spec          *v1.DigitalOceanKubernetesClusterSpec
	tags          []string
	nodePoolName  string
	nodePoolTags  []string
	ignoreChanges []string
	// protect is the cluster's deletion protection: on unless the manifest turns it off.
	protect bool
}

// newLocals derives the locals; ctx is the program's, whose stack mark (stackmark) the cluster's
// and the default pool's tags take.
func newLocals(ctx context.Context, name string, md *sharedv1.CloudResourceMetadata, spec *v1.DigitalOceanKubernetesClusterSpec) *locals {
	pool := spec.GetDefaultNodePool()
	standard := labels.Standard(Kind, md)
	l := &locals{
		name:         name,
		spec:         spec,
		tags:         stackmark.Tags(ctx, labels.Tags(standard, spec.GetTags())),
		nodePoolName: pool.GetNodePoolName(),
		nodePoolTags: stackmark.Tags(ctx, labels.Tags(standard, pool.GetTags())),
		protect:      spec.DeletionProtection == nil || spec.GetDeletionProtection(),
	}
	if l.nodePoolName == "" {
		l.nodePoolName = DefaultNodePoolName
	}
	// The autoscaler moves the count by itself; undoing its changes would fight it. The version
	// is decided with the live cluster's (version.go).
	if pool.GetAutoScale() {
		l.ignoreChanges = append(l.ignoreChanges, "nodePool.nodeCount")
	}
	return l
}

// DefaultNodePool is the default pool's name and tags as the module gives them to the cluster's
// node_pool: what a rotation creates the new default pool with, so that the engine finds it as
// the manifest says.
func DefaultNodePool(ctx context.Context, md *sharedv1.CloudResourceMetadata, spec *v1.DigitalOceanKubernetesClusterSpec) (name string, tags []string) {
	l := newLocals(ctx, "", md, spec)
	return l.nodePoolName, l.nodePoolTags
}
