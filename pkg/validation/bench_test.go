package validation_test

import (
	"os"
	"testing"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	"github.com/clusterplane/clusterplane/pkg/stackinput"
	"github.com/clusterplane/clusterplane/pkg/validation"
)

// BenchmarkValidateProductionCluster measures the rules of the richest example, CEL included
// (subnet overlap, tags, autoscaling bounds).
func BenchmarkValidateProductionCluster(b *testing.B) {
	data, err := os.ReadFile("../../examples/digitaloceankubernetescluster/production.yaml")
	if err != nil {
		b.Fatal(err)
	}
	input := &v1.DigitalOceanKubernetesClusterStackInput{}
	if err := stackinput.Parse(data, "production.yaml", input); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := validation.Validate(input); err != nil {
			b.Fatal(err)
		}
	}
}
