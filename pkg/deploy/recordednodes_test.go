package deploy_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/fielddrift"
	"github.com/clusterplane/clusterplane/pkg/deploy/render"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/pulumi/stackrecord"
)

// clusterState is a stack's state holding n DigitalOcean clusters with these outputs and inputs.
func clusterState(t *testing.T, n int, outputs, inputs map[string]any) stackstate.State {
	t.Helper()
	var d apitype.DeploymentV3
	for i := 0; i < n; i++ {
		urn := resource.URN("urn:pulumi:dev-fra1::digitaloceankubernetescluster::" + clusterType + "::dev-fra1")
		if i > 0 {
			urn += "-surge"
		}
		d.Resources = append(d.Resources, apitype.ResourceV3{URN: urn, Type: clusterType, Outputs: outputs, Inputs: inputs})
	}
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	st, err := stackstate.StateOf(apitype.UntypedDeployment{Version: 3, Deployment: data})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// The nodes status shows are those the stack's state holds, as the last up or refresh read them
// from the cloud, with the manifest the last up deployed for what the state does not say.
func TestTheRecordedManifestHoldsTheNodeCountTheStateReadFromTheCloud(t *testing.T) {
	manifest := cluster(t) // two nodes
	deployedThree, err := stackrecord.Manifest(cluster(t, "nodeCount: 2", "nodeCount: 3").Input)
	if err != nil {
		t.Fatal(err)
	}
	pool := func(fields map[string]any) map[string]any { return map[string]any{"nodePool": fields} }
	tests := []struct {
		name    string
		state   stackstate.State
		outputs map[string]stackstate.Output
		want    string // the recorded manifest's nodes; "" for none recorded
	}{
		{"a count a refresh read into the outputs is the cloud's",
			clusterState(t, 1, pool(map[string]any{"size": "s-2vcpu-4gb", "nodeCount": float64(4)}), nil), nil, "4"},
		{"a count the provider files under actualNodeCount is read there",
			clusterState(t, 1, pool(map[string]any{"nodeCount": float64(0), "actualNodeCount": float64(5)}), nil), nil, "5"},
		{"a state with inputs only is read from them",
			clusterState(t, 1, nil, pool(map[string]any{"nodeCount": float64(1)})), nil, "1"},
		{"a state that says no count leaves the count the last up deployed",
			clusterState(t, 1, map[string]any{}, nil), map[string]stackstate.Output{deploytarget.ManifestOutput: {Value: deployedThree}}, "3"},
		{"two clusters, neither the stack's alone, leave the count the last up deployed",
			clusterState(t, 2, pool(map[string]any{"nodeCount": float64(7)}), nil),
			map[string]stackstate.Output{deploytarget.ManifestOutput: {Value: deployedThree}}, "3"},
		{"a stack that holds nothing records nothing", clusterState(t, 0, nil, nil), nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recorded := fielddrift.Recorded(manifest, tt.state, tt.outputs)
			got := ""
			if recorded != nil {
				got = render.Nodes(recorded)
			}
			if got != tt.want {
				t.Errorf("recorded nodes %q, want %q", got, tt.want)
			}
			if manifestNodes := render.Nodes(manifest.Input); manifestNodes != "2" {
				t.Errorf("the manifest's nodes became %s: Recorded changed the manifest it was given", manifestNodes)
			}
		})
	}
}

// status reads the recorded manifest from the stack it reads, whatever the manifest says now.
func TestStatusReportsTheManifestAsTheStackLastRecordedIt(t *testing.T) {
	ctx := context.Background()
	d, _ := deployer()
	mustUp(ctx, t, d, cluster(t))
	o := d.Status(ctx, cluster(t, "nodeCount: 2", "nodeCount: 3"), deploy.StatusOptions{})
	if o.Report == nil || o.Report.Recorded == nil {
		t.Fatalf("status: %s %v, no recorded manifest", o.Status, o.Err)
	}
	if got := render.Nodes(o.Report.Recorded); got != "2" {
		t.Errorf("recorded nodes %s, want the 2 the last up deployed", got)
	}
}
