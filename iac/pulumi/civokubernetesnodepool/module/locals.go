package module

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
)

// locals are the values derived from a manifest before anything is created.
type locals struct {
	name          string
	spec          *v1.CivoKubernetesNodePoolSpec
	ignoreChanges []string
}

func newLocals(name string, spec *v1.CivoKubernetesNodePoolSpec) *locals {
	// The node count is sent at creation only. The pinned Civo provider (terraform-provider-civo
	// v1.1.4) crashes on a node-count update (civo/terraform-provider-civo#381), so no manifest
	// change may reach it; with auto_scale the autoscaler owns the count anyway. `diff` reports
	// a changed node count as refused and says how to scale instead.
	return &locals{name: name, spec: spec, ignoreChanges: []string{"nodeCount"}}
}
