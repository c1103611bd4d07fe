package component_test

import (
	"slices"
	"sort"
	"strings"
	"testing"

	dopoolv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/pkg/pulumi/component"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// pool is a component as a kind's outputs.go writes one: outputs tagged with their component
// names, and a field that is no output.
type pool struct {
	pulumi.ResourceState

	NodePoolID pulumi.StringOutput      `pulumi:"nodePoolId"`
	NodeIDs    pulumi.StringArrayOutput `pulumi:"nodeIds"`
	Resource   *pulumi.ResourceState
}

// stray has an output its kind's StackOutputs message does not name.
type stray struct {
	pulumi.ResourceState

	NodePoolID pulumi.StringOutput `pulumi:"nodePoolId"`
	PoolName   pulumi.StringOutput `pulumi:"poolName"`
}

func TestStackOutputsNamesEachOutputAsItsStackOutputsMessageDoes(t *testing.T) {
	names := (&dopoolv1.DigitalOceanKubernetesNodePoolStackOutputs{}).ProtoReflect().Descriptor()
	p := &pool{NodePoolID: pulumi.String("pool-id").ToStringOutput(), NodeIDs: pulumi.ToStringArray([]string{"n1"}).ToStringArrayOutput()}
	tests := []struct {
		name    string
		comp    pulumi.ComponentResource
		want    []string
		wantErr string
	}{
		{name: "tagged fields are exported under the message's own field names, untagged ones not at all",
			comp: p, want: []string{"node_ids", "node_pool_id"}},
		{name: "an output the message does not name is an error that names both",
			comp: &stray{}, wantErr: "output poolName is not a field of clusterplane.provider.digitalocean.digitaloceankubernetesnodepool.v1.DigitalOceanKubernetesNodePoolStackOutputs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := component.StackOutputs(tt.comp, names)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("StackOutputs error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for k := range got {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			if !slices.Equal(keys, tt.want) {
				t.Errorf("stack outputs = %v, want %v", keys, tt.want)
			}
		})
	}
	got, err := component.StackOutputs(p, names)
	if err != nil {
		t.Fatal(err)
	}
	if got["node_pool_id"] != p.NodePoolID || got["node_ids"] != p.NodeIDs {
		t.Errorf("stack outputs carry other values than the component's fields: %v", got)
	}
}
