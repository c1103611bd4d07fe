package componentkind_test

import (
	"testing"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/entry"
	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/module"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/kinds/componentkind"
)

func TestKindKeepsWhatIsTheKindsOwnAndTakesTheRestFromItsProgramAndModule(t *testing.T) {
	p := componentkind.Program[v1.CivoKubernetesClusterStackInput]("civokubernetescluster", module.Resources, entry.Effects)
	k := componentkind.Kind(p, module.New, kinds.Kind{Short: "civo-cluster", Nodes: "node_names", Project: "not the program's"})
	tests := []struct {
		name, got, want string
	}{
		{"the short name is the kind's own", k.Short, "civo-cluster"},
		{"the nodes' output is the kind's own", k.Nodes, "node_names"},
		{"the manifest kind is the program's", k.Name, module.Kind},
		{"the project is the program's, whatever own said", k.Project, "civokubernetescluster"},
		{"the component's type token is the one the module registers", k.Component.Token, module.TypeToken},
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
