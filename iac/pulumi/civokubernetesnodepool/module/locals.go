package module

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
)

// locals are the values derived from a manifest before anything is created.
type locals struct {
	name string
	spec *v1.CivoKubernetesNodePoolSpec
}

func newLocals(name string, spec *v1.CivoKubernetesNodePoolSpec) *locals {
	return &locals{name: name, spec: spec}
}
