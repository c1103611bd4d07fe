package module

import (
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi-civo/sdk/v2/go/civo"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// firewall creates the cluster's firewall on its network: the Kubernetes API (6443) only from
// the allowed CIDRs, HTTP and HTTPS for ingress from anywhere, all egress. Civo's default rules
// are off because they open the API to everyone.
func firewall(ctx *pulumi.Context, l *locals, networkID pulumi.StringInput, opts ...pulumi.ResourceOption) (*civo.Firewall, error) {
	ingress := civo.FirewallIngressRuleArray{
		ingressRule("kubernetes-api", "6443", l.apiCIDRs),
		ingressRule("http", "80", []string{AllIPv4}),
		ingressRule("https", "443", []string{AllIPv4}),
	}
	egress := civo.FirewallEgressRuleArray{}
	for _, protocol := range []string{"tcp", "udp"} {
		egress = append(egress, civo.FirewallEgressRuleArgs{
			Label:     pulumi.String("all-" + protocol),
			Protocol:  pulumi.String(protocol),
			PortRange: pulumi.String("1-65535"),
			Cidrs:     pulumi.ToStringArray([]string{AllIPv4}),
			Action:    pulumi.String("allow"),
		})
	}
	egress = append(egress, civo.FirewallEgressRuleArgs{
		Label:    pulumi.String("all-icmp"),
		Protocol: pulumi.String("icmp"),
		Cidrs:    pulumi.ToStringArray([]string{AllIPv4}),
		Action:   pulumi.String("allow"),
	})
	// The module sends createDefaultRules (false) at the create only. Civo keeps no such field:
	// the provider reads it back from the state, or on an import as its default, true
	// (terraform-provider-civo v1.1.4 resourceFirewallRead), and a change of it replaces the
	// firewall. Ignored, a firewall adopt imports with its cluster is never replaced for it.
	opts = append(opts, pulumi.IgnoreChanges([]string{"createDefaultRules"}))
	fw, err := civo.NewFirewall(ctx, l.name, &civo.FirewallArgs{
		Name:               pulumi.String(l.spec.GetClusterName()),
		NetworkId:          networkID,
		Region:             pulumi.String(l.region),
		CreateDefaultRules: pulumi.Bool(false),
		IngressRules:       ingress,
		EgressRules:        egress,
	}, opts...)
	return fw, errors.Wrap(err, "create firewall")
}

func ingressRule(label, ports string, cidrs []string) civo.FirewallIngressRuleArgs {
	return civo.FirewallIngressRuleArgs{
		Label:     pulumi.String(label),
		Protocol:  pulumi.String("tcp"),
		PortRange: pulumi.String(ports),
		Cidrs:     pulumi.ToStringArray(cidrs),
		Action:    pulumi.String("allow"),
	}
}
