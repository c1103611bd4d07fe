package module_test

import (
	"fmt"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	civokubernetesnodepool "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/module"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// A pool whose cluster lives in another stack: a valueFrom reference reads that stack's
// cluster_id output through a Pulumi stack reference. The stack name follows the convention
// <organization>/<kind in lower case>/<name>-<env>.
func ExampleNew_clusterFromAnotherStack() {
	// Another stack holds the cluster and exports its id. The mocks stand in for that stack: a
	// reference to it reads these outputs.
	clusterStack := mockrun.Options{Stacks: map[string]map[string]any{
		"organization/civokubernetescluster/edge-prod": {"cluster_id": "c0ffee00-1111-2222-3333-444455556666"},
	}}
	program := func(ctx *pulumi.Context) error {
		_, err := civokubernetesnodepool.New(ctx, "edge-gpu", &v1.CivoKubernetesNodePoolSpec{
			NodePoolName: "gpu",
			Region:       "fra1",
			Size:         "g4s.kube.large",
			NodeCount:    1,
			Cluster:      sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Name: "edge", Env: "prod"}),
		})
		return err
	}
	mockrun.Show(program, clusterStack, func(p *mockrun.Result) {
		ref := p.OfType(mockrun.StackReferenceType)[0]
		pool, _ := p.Find("clusterplane:civo:NodePool", "edge-gpu")
		fmt.Println("stack:", ref.Inputs["name"])
		fmt.Println("clusterId:", pool.Inputs["clusterId"])
	})
	// Output:
	// stack: organization/civokubernetescluster/edge-prod
	// clusterId: c0ffee00-1111-2222-3333-444455556666
}
