package mockrun_test

import (
	"testing"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/module"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// BenchmarkPlanProductionCluster measures what `plan` does for one manifest: load, validate and
// run the module under mocks.
func BenchmarkPlanProductionCluster(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		input := &v1.DigitalOceanKubernetesClusterStackInput{}
		if err := stackinput.LoadFile("../../../examples/digitaloceankubernetescluster/production.yaml", input); err != nil {
			b.Fatal(err)
		}
		if _, err := mockrun.Run(func(ctx *pulumi.Context) error { return module.Resources(ctx, input) },
			mockrun.Options{Preview: true}); err != nil {
			b.Fatal(err)
		}
	}
}
