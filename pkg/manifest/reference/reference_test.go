package reference_test

import (
	"testing"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/reference"
)

func TestOutputNameReadsTheFieldPathOrTheDefault(t *testing.T) {
	tests := []struct {
		name      string
		fieldPath string
		want      string
	}{
		{"status.outputs.x reads x", "status.outputs.cluster_id", "cluster_id"},
		{"another output of the same stack is read by its name", "status.outputs.vpc_uuid", "vpc_uuid"},
		{"an empty field path reads the default output", "", "network_id"},
		{"a bare output name is read as is", "firewall_id", "firewall_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := &sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Name: "a", FieldPath: tt.fieldPath}
			if got := reference.OutputName(ref, "network_id"); got != tt.want {
				t.Errorf("OutputName(%q) = %q, want %q", tt.fieldPath, got, tt.want)
			}
		})
	}
}
