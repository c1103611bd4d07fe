// Package module deploys a CivoKubernetesNodePool: a provider in the pool's region, the node pool
// on an existing cluster, and the stack outputs.
package module

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/pkg/provider"
	"github.com/clusterplane/clusterplane/pkg/reference"
	"github.com/clusterplane/clusterplane/pkg/validation"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// ClusterIDOutput is the output of a cluster stack that a `valueFrom` cluster reads by default.
const ClusterIDOutput = "cluster_id"

// Resources deploys the stack input's node pool and exports its outputs.
func Resources(ctx *pulumi.Context, input *v1.CivoKubernetesNodePoolStackInput) error {
	if err := validation.Validate(input); err != nil {
		return err
	}
	l := newLocals(input.GetTarget())
	// The pool lands in the provider's region, so the provider is the pool's region's.
	p, err := provider.NewCivo(ctx, l.name, input.GetProviderConfig(), l.spec.GetRegion())
	if err != nil {
		return err
	}
	clusterID, err := reference.Resolve(ctx, l.name, "cluster", l.spec.GetCluster(), ClusterIDOutput)
	if err != nil {
		return err
	}
	np, err := nodePool(ctx, l, clusterID, pulumi.Provider(p))
	if err != nil {
		return err
	}
	exportOutputs(ctx, np)
	return nil
}
