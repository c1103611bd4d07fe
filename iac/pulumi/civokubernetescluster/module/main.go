// Package module deploys a CivoKubernetesCluster: its provider, a firewall unless one is given,
// the cluster with its one node pool, and the stack outputs.
package module

import (
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	"github.com/clusterplane/clusterplane/pkg/provider"
	"github.com/clusterplane/clusterplane/pkg/reference"
	"github.com/clusterplane/clusterplane/pkg/validation"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Outputs a `valueFrom` network or firewall reads by default.
const (
	NetworkIDOutput  = "network_id"
	FirewallIDOutput = "firewall_id"
)

// Resources deploys the stack input's cluster and exports its outputs.
func Resources(ctx *pulumi.Context, input *v1.CivoKubernetesClusterStackInput) error {
	if err := validation.Validate(input); err != nil {
		return err
	}
	l := newLocals(input.GetTarget())
	p, err := provider.NewCivo(ctx, l.name, input.GetProviderConfig(), l.spec.GetRegion())
	if err != nil {
		return err
	}
	networkID, err := reference.Resolve(ctx, l.name, "network", l.spec.GetNetwork(), NetworkIDOutput)
	if err != nil {
		return err
	}
	var firewallID pulumi.StringOutput
	if ref := l.spec.GetFirewall(); ref != nil {
		if firewallID, err = reference.Resolve(ctx, l.name, "firewall", ref, FirewallIDOutput); err != nil {
			return err
		}
	} else {
		fw, err := firewall(ctx, l, networkID, pulumi.Provider(p))
		if err != nil {
			return err
		}
		firewallID = fw.ID().ToStringOutput()
	}
	c, err := cluster(ctx, l, networkID, firewallID, pulumi.Provider(p))
	if err != nil {
		return err
	}
	exportOutputs(ctx, c)
	return nil
}
