package component_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/apis/clusterplane/stackoutputs"
	civocluster "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/module"
	"github.com/clusterplane/clusterplane/pkg/pulumi/component"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// ownAndEmbedded is a component with an output of its own beside the outputs it embeds.
type ownAndEmbedded struct {
	pulumi.ResourceState
	stackoutputs.CivoKubernetesNodePool
	Extra pulumi.StringOutput `pulumi:"extra"`
	// Untagged is no output.
	Untagged pulumi.StringOutput
}

// taggedTwice tags its own field as an output its embedded struct has already.
type taggedTwice struct {
	pulumi.ResourceState
	stackoutputs.CivoKubernetesNodePool
	Again pulumi.StringOutput `pulumi:"nodePoolId"`
}

func TestOutputsAreTheComponentsTaggedFieldsAndThoseOfTheStructsItEmbeds(t *testing.T) {
	id, names := pulumi.String("id").ToStringOutput(), pulumi.ToStringArray([]string{"n1"}).ToStringArrayOutput()
	extra := pulumi.String("x").ToStringOutput()
	cluster := &civocluster.Cluster{}
	cluster.ClusterID, cluster.KubeconfigB64 = id, extra
	tests := []struct {
		name    string
		comp    pulumi.ComponentResource
		want    pulumi.Map
		wantErr string
	}{
		{name: "a kind's component has the outputs it embeds and not its resource",
			comp: cluster, want: pulumi.Map{"clusterId": id, "kubeconfigB64": extra, "apiServerEndpoint": pulumi.StringOutput{},
				"masterIp": pulumi.StringOutput{}, "dnsEntry": pulumi.StringOutput{}, "firewallId": pulumi.StringOutput{},
				"networkId": pulumi.StringOutput{}, "createdAt": pulumi.StringOutput{}}},
		{name: "a component's own outputs come beside the embedded ones and untagged fields are left out",
			comp: &ownAndEmbedded{CivoKubernetesNodePool: stackoutputs.CivoKubernetesNodePool{NodePoolID: id, InstanceNames: names}, Extra: extra},
			want: pulumi.Map{"nodePoolId": id, "instanceNames": names, "extra": extra}},
		{name: "two fields tagged as one output are an error naming it, as one would be lost",
			comp: &taggedTwice{}, wantErr: "two fields are tagged as output nodePoolId"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := component.Outputs(tt.comp)
			if err != nil || tt.wantErr != "" {
				if err == nil || tt.wantErr == "" || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Outputs error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("outputs = %v, want %v", got, tt.want)
			}
		})
	}
}
