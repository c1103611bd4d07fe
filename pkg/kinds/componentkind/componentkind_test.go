package componentkind_test

import (
	"context"
	"testing"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	dopoolv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/entry"
	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/module"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/kinds/componentkind"
)

func TestKindKeepsWhatIsTheKindsOwnAndTakesTheRestFromItsProgramAndModule(t *testing.T) {
	p := componentkind.Program[v1.CivoKubernetesClusterStackInput]("civokubernetescluster", civo.Driver{}, module.Resources, entry.Effects)
	k := componentkind.Kind(p, module.New, kinds.Kind{Short: "civo-cluster", Nodes: "node_names", Project: "not the program's"})
	tests := []struct {
		name, got, want string
	}{
		{"the short name is the kind's own", k.Short, "civo-cluster"},
		{"the nodes' output is the kind's own", k.Nodes, "node_names"},
		{"the manifest kind is the program's", k.Name, module.Kind},
		{"the project is the program's, whatever own said", k.Project, "civokubernetescluster"},
		{"the component's type token is the one the module registers", k.Component.Token, module.TypeToken},
		{"the effects table is named after the manifest kind", k.Effects.Name, module.Kind},
		{"the effects table is built: its component's type is the module's", k.Effects.Types[effects.Component], module.TypeToken},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
	if k.Resources == nil || k.Effects == nil || k.NewStackInput == nil || k.Component.Construct == nil {
		t.Errorf("kind %+v lacks what its program gives", k)
	}
}

func TestPoolRotateGivesTheRotationThePoolsClusterOrRefusesAClusterNotKnownYet(t *testing.T) {
	input := &dopoolv1.DigitalOceanKubernetesNodePoolStackInput{Target: &dopoolv1.DigitalOceanKubernetesNodePool{
		Spec: &dopoolv1.DigitalOceanKubernetesNodePoolSpec{NodePoolName: "workers", Cluster: sharedv1.StringValue("c1")}}}
	rotate := componentkind.PoolRotate(
		func(_ context.Context, in *dopoolv1.DigitalOceanKubernetesNodePoolStackInput, cluster string) (*kinds.Rotation, error) {
			return &kinds.Rotation{Final: in.GetTarget().GetSpec().GetNodePoolName() + " in " + cluster}, nil
		})
	tests := []struct {
		name    string
		cluster string
		want    string
		wantErr string
	}{
		{name: "the rotation is readied in the cluster the pool's ref resolves to", cluster: "c1", want: "workers in c1"},
		{name: "a cluster whose stack has no id yet is refused, naming the output", cluster: "",
			wantErr: "the pool's cluster id is not known (its cluster's stack has no cluster_id output)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resolve := func(_ context.Context, ref *sharedv1.StringValueOrRef, output string) (string, error) {
				if ref.GetValue() != "c1" || output != "cluster_id" {
					t.Errorf("resolve(%v, %q), want the pool's ref and cluster_id", ref, output)
				}
				return tt.cluster, nil
			}
			r, err := rotate(context.Background(), input, "", resolve)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("rotate() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || r.Final != tt.want {
				t.Errorf("rotate() = %+v, %v; want the rotation of %q", r, err, tt.want)
			}
		})
	}
}
