package module_test

import (
	"fmt"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	civokubernetescluster "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/module"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/pulumi/pulumi-civo/sdk/v2/go/civo"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// A cluster in a network the same program creates: WithNetworkID takes the network's id as an
// output. Without a firewall in the spec, the module creates one on that network.
func ExampleWithNetworkID() {
	program := func(ctx *pulumi.Context) error {
		network, err := civo.NewNetwork(ctx, "edge", &civo.NetworkArgs{Label: pulumi.String("edge")})
		if err != nil {
			return err
		}
		_, err = civokubernetescluster.New(ctx, "edge", &v1.CivoKubernetesClusterSpec{
			ClusterName:       "edge-fra1",
			Region:            "fra1",
			KubernetesVersion: "1.30.5-k3s1",
			DefaultNodePool:   &v1.CivoKubernetesClusterDefaultNodePool{Size: "g4s.kube.medium", NodeCount: 3},
		}, civokubernetescluster.WithNetworkID(network.ID().ToStringOutput()))
		return err
	}
	mockrun.Show(program, mockrun.Options{}, func(p *mockrun.Result) {
		for _, typ := range []string{"civo:index/firewall:Firewall", "civo:index/kubernetesCluster:KubernetesCluster"} {
			r, _ := p.Find(typ, "edge")
			fmt.Println(typ, "networkId:", r.Inputs["networkId"])
		}
	})
	// Output:
	// civo:index/firewall:Firewall networkId: edge-id
	// civo:index/kubernetesCluster:KubernetesCluster networkId: edge-id
}
