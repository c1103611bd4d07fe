package stackstate_test

import (
	"encoding/json"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/sig"

	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// What a program is handed of the state an up wrote holds each resource's plain outputs, the
// cluster's name and version among them, and never a secret or the stack and its providers.
func TestTheReadHandedToAProgramHoldsEachResourcesPlainOutputsAndNoSecret(t *testing.T) {
	const cluster = "digitalocean:index/kubernetesCluster:KubernetesCluster"
	d := apitype.DeploymentV3{Resources: []apitype.ResourceV3{
		{Type: "pulumi:pulumi:Stack", Outputs: map[string]any{"cluster_id": "c1"}},
		{Type: "pulumi:providers:digitalocean", Outputs: map[string]any{"version": "4.57.0"}},
		{Type: cluster, Outputs: map[string]any{"name": "dev-fra1", "version": "1.31.9-do.2",
			"kubeConfigs": map[string]any{sig.Key: sig.Secret, "ciphertext": "v1:x"}}},
		{Type: cluster, Delete: true, Outputs: map[string]any{"name": "dev-fra1", "version": "1.30.1-do.0"}},
	}}
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	st, err := stackstate.StateOf(apitype.UntypedDeployment{Version: 3, Deployment: data})
	if err != nil {
		t.Fatal(err)
	}
	read := st.Read()
	if len(read) != 1 || read[0].Type != cluster {
		t.Fatalf("Read = %v, want the cluster alone", read)
	}
	out, ok := read.Named(cluster, "dev-fra1")
	if !ok || out["version"] != "1.31.9-do.2" {
		t.Errorf("the cluster's outputs %v, want its version 1.31.9-do.2", out)
	}
	if _, secret := out["kubeConfigs"]; secret {
		t.Error("a secret output was handed on")
	}
}

// Drift runs a stack's program with the mark its state records: found wherever the inputs hold
// tags, and none for a stack deployed before clusterplane marked what it creates.
func TestTheMarkAStateRecordsIsFoundWhereverItsTagsAre(t *testing.T) {
	m := stackmark.Of("file:///state", "p/s")
	tests := []struct {
		name   string
		inputs map[string]any
		want   bool
	}{
		{"a list of tags", map[string]any{"tags": []any{"team:a", m.Tag()}}, true},
		{"a cluster's default pool's tags", map[string]any{"tags": []any{"team:a"}, "nodePool": map[string]any{"tags": []any{m.Tag()}}}, true},
		{"Civo's one string of tags", map[string]any{"tags": "team:a " + m.Tag()}, true},
		{"no mark", map[string]any{"tags": []any{"team:a", "clusterplane-stack:by-hand"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := stackstate.State{Deployment: apitype.DeploymentV3{Resources: []apitype.ResourceV3{{Type: "x:y:Z", Inputs: tt.inputs}}}}
			got, ok := st.Mark()
			if ok != tt.want || ok && got != m {
				t.Errorf("Mark() = %v, %v; want %v, %v", got, ok, m, tt.want)
			}
		})
	}
}
