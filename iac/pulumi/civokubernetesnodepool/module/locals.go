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
	l := &locals{name: name, spec: spec}
	// Civo's cluster autoscaler moves the count; undoing its changes would fight it.
	if spec.GetAutoScale() {
		l.ignoreChanges = append(l.ignoreChanges, "nodeCount")
	}
	return l
}
