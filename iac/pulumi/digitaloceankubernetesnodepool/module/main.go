// Package module deploys a DigitalOceanKubernetesNodePool: its provider, the node pool on an
// existing cluster, and the stack outputs.
package module

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/pkg/provider"
	"github.com/clusterplane/clusterplane/pkg/reference"
	"github.com/clusterplane/clusterplane/pkg/validation"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// ClusterIDOutput is the output of a cluster stack that a `valueFrom` cluster reads by default.
const ClusterIDOutput = "cluster_id"

// Resources deploys the stack input's node pool and exports its outputs.
func Resources(ctx *pulumi.Context, input *v1.DigitalOceanKubernetesNodePoolStackInput) error {
	if err := validation.Validate(input); err != nil {
		return err
	}
	l := newLocals(input.GetTarget())
	p, err := provider.NewDigitalOcean(ctx, l.name, input.GetProviderConfig())
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
