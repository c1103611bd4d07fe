package module

import (
	"github.com/pulumi/pulumi-civo/sdk/v2/go/civo"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Stack output names, as in CivoKubernetesNodePoolStackOutputs.
const (
	OutputNodePoolID    = "node_pool_id"
	OutputInstanceNames = "instance_names"
)

func exportOutputs(ctx *pulumi.Context, np *civo.KubernetesNodePool) {
	ctx.Export(OutputNodePoolID, np.ID())
	ctx.Export(OutputInstanceNames, np.InstanceNames)
}
