package apidoc_test

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/describe/apidoc"
	"google.golang.org/protobuf/reflect/protoreflect"
)

func TestEmbeddedImageReadsAndCarriesTheProtoComments(t *testing.T) {
	if err := apidoc.Err(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name protoreflect.FullName
		want string
	}{
		{"clusterplane.provider.digitalocean.digitaloceankubernetescluster.v1.DigitalOceanKubernetesClusterDefaultNodePool.size", "Droplet size slug"},
		{"clusterplane.provider.digitalocean.digitaloceankubernetescluster.v1.DigitalOceanKubernetesClusterSpec", "default node pool"},
		{"clusterplane.provider.civo.civokubernetescluster.v1.talos", "Talos Linux"},
		{"clusterplane.shared.v1.StringValueOrRef.value", "The literal value"},
		{"clusterplane.shared.v1.Taint.effect", "NoSchedule, PreferNoSchedule or NoExecute"},
	}
	for _, c := range cases {
		got := apidoc.Comment(c.name)
		if !strings.Contains(got, c.want) {
			t.Errorf("Comment(%s) = %q, want it to contain %q", c.name, got, c.want)
		}
		if strings.HasPrefix(got, " ") || strings.HasSuffix(got, "\n") {
			t.Errorf("Comment(%s) = %q keeps comment padding", c.name, got)
		}
	}
	if got := apidoc.Comment("clusterplane.no.such.Thing"); got != "" {
		t.Errorf("Comment of an unknown name = %q, want empty", got)
	}
}
