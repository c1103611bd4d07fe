// Package module deploys a DigitalOceanKubernetesCluster: its provider, the cluster with its
// default node pool, and the stack outputs.
package module

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	"github.com/clusterplane/clusterplane/pkg/provider"
	"github.com/clusterplane/clusterplane/pkg/reference"
	"github.com/clusterplane/clusterplane/pkg/validation"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Resources deploys the stack input's cluster and exports its outputs.
func Resources(ctx *pulumi.Context, input *v1.DigitalOceanKubernetesClusterStackInput) error {
	if err := validation.Validate(input); err != nil {
		return err
	}
	l := newLocals(input.GetTarget())
	p, err := provider.NewDigitalOcean(ctx, l.name, input.GetProviderConfig())
	if err != nil {
		return err
	}
	var vpc pulumi.StringPtrInput
	if ref := l.spec.GetVpc(); ref != nil {
		id, err := reference.Resolve(ctx, l.name, "vpc", ref, OutputVpcUUID)
		if err != nil {
			return err
		}
		vpc = id
	}
	c, err := cluster(ctx, l, vpc, pulumi.Provider(p))
	if err != nil {
		return err
	}
	exportOutputs(ctx, c)
	return nil
}
