package component_test

import (
	"maps"
	"strings"
	"testing"

	dopoolv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/apis/clusterplane/stackoutputs"
	civopool "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/module"
	dopool "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/module"
	"github.com/clusterplane/clusterplane/pkg/pulumi/component"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"
)

func TestStackOutputsNamesEachOutputAsItsStackOutputsMessageDoes(t *testing.T) {
	input := &dopoolv1.DigitalOceanKubernetesNodePoolStackInput{}
	// The DigitalOcean pool's component, whose Resource field is no output.
	p := &dopool.NodePool{DigitalOceanKubernetesNodePool: stackoutputs.DigitalOceanKubernetesNodePool{
		NodePoolID: pulumi.String("pool-id").ToStringOutput(),
		NodeIDs:    pulumi.ToStringArray([]string{"1"}).ToStringArrayOutput(), NodeNames: pulumi.ToStringArray([]string{"n1"}).ToStringArrayOutput()}}
	tests := []struct {
		name       string
		comp       pulumi.ComponentResource
		stackInput proto.Message
		want       pulumi.Map
		wantErr    string
	}{
		{name: "tagged fields are exported under the message's own field names, untagged ones not at all",
			comp: p, stackInput: input, want: pulumi.Map{"node_pool_id": p.NodePoolID, "node_ids": p.NodeIDs, "node_names": p.NodeNames}},
		{name: "an output the message does not name is an error that names both",
			comp: &civopool.NodePool{}, stackInput: input,
			wantErr: "output instanceNames is not a field of clusterplane.provider.digitalocean.digitaloceankubernetesnodepool.v1.DigitalOceanKubernetesNodePoolStackOutputs"},
		{name: "a stack input without target.status.outputs is an error naming the field it lacks",
			comp: p, stackInput: &sharedv1.CloudResourceMetadata{}, wantErr: "CloudResourceMetadata has no message field target"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := component.StackOutputs(tt.comp, tt.stackInput)
			if err != nil || tt.wantErr != "" {
				if err == nil || tt.wantErr == "" || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("StackOutputs error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("stack outputs = %v, want %v", got, tt.want)
			}
		})
	}
}
