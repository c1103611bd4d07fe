package stackinput_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	civocluster "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	civopool "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	cluster "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	dopool "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"google.golang.org/protobuf/proto"
)

// example reads a manifest of examples/, for tests that need every kind.
func example(t *testing.T, kind, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", kind, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// only is the one problem Parse finds in text read as input.
func only(t *testing.T, input proto.Message, text string) stackinput.Problem {
	t.Helper()
	err := stackinput.Parse([]byte(text), "test.yaml", input)
	problems := stackinput.Problems(err)
	if len(problems) != 1 {
		t.Fatalf("want one problem, got %v", err)
	}
	return problems[0]
}

func TestARegionWrittenWithCapitalsIsRefusedWithAHintNamingItInLowerCase(t *testing.T) {
	civoPool := example(t, "civokubernetesnodepool", "minimal.yaml")
	tests := []struct {
		name  string
		input proto.Message
		text  string
		hint  string
	}{
		{"DigitalOcean, one capital", nil, strings.Replace(manifest("dev-fra1"), "region: fra1", "region: Fra1", 1), "regions are lower case on both clouds: write fra1"},
		{"DigitalOcean, all capitals", nil, strings.Replace(manifest("dev-fra1"), "region: fra1", "region: FRA1", 1), "regions are lower case on both clouds: write fra1"},
		{"Civo", &civopool.CivoKubernetesNodePoolStackInput{}, strings.Replace(civoPool, "region: fra1", "region: Lon1", 1), "regions are lower case on both clouds: write lon1"},
		// Lower case would not make these regions: no hint guesses.
		{"a place's name", nil, strings.Replace(manifest("dev-fra1"), "region: fra1", "region: Fra", 1), ""},
		{"a region with a dash", nil, strings.Replace(manifest("dev-fra1"), "region: fra1", "region: FRA-1", 1), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.input == nil {
				tt.input = &cluster.DigitalOceanKubernetesClusterStackInput{}
			}
			p := only(t, tt.input, tt.text)
			if p.Path != "spec.region" || p.RuleID != "string.pattern" || p.Hint != tt.hint {
				t.Errorf("got %s (hint %q)\nwant spec.region refused with the hint %q", p, p.Hint, tt.hint)
			}
		})
	}
}

func TestANameWrittenOutsideMetadataSaysWhereTheManifestsNameAndTheCloudsNameGo(t *testing.T) {
	doCluster := manifest("dev-fra1")
	civoCluster := example(t, "civokubernetescluster", "minimal.yaml")
	civoPool := example(t, "civokubernetesnodepool", "minimal.yaml")
	civoPoolInput := example(t, "civokubernetesnodepool", "minimal.stack-input.yaml")
	doPool := example(t, "digitaloceankubernetesnodepool", "minimal.yaml")
	top := func(text string) string { return strings.Replace(text, "\nmetadata:\n", "\nname: x\nmetadata:\n", 1) }
	inSpec := func(text string) string { return strings.Replace(text, "\nspec:\n", "\nspec:\n  name: x\n", 1) }
	tests := []struct {
		name  string
		input proto.Message
		text  string
		path  string
		hint  string
	}{
		{"at the top of a DigitalOcean cluster", &cluster.DigitalOceanKubernetesClusterStackInput{}, top(doCluster), "name",
			"name belongs to metadata.name, which names the manifest and its stack; the cluster's name in DigitalOcean is spec.clusterName"},
		{"in a DigitalOcean cluster's spec", &cluster.DigitalOceanKubernetesClusterStackInput{}, inSpec(doCluster), "spec.name",
			"the cluster's name in DigitalOcean is spec.clusterName; metadata.name names the manifest and its stack"},
		{"in a DigitalOcean default pool", &cluster.DigitalOceanKubernetesClusterStackInput{},
			strings.Replace(doCluster, "  defaultNodePool:\n", "  defaultNodePool:\n    name: x\n", 1), "spec.defaultNodePool.name",
			"the pool's name in DigitalOcean is spec.defaultNodePool.nodePoolName; metadata.name names the manifest and its stack"},
		{"at the top of a DigitalOcean pool", &dopool.DigitalOceanKubernetesNodePoolStackInput{}, top(doPool), "name",
			"name belongs to metadata.name, which names the manifest and its stack; the pool's name in DigitalOcean is spec.nodePoolName"},
		{"in a DigitalOcean pool's spec", &dopool.DigitalOceanKubernetesNodePoolStackInput{}, inSpec(doPool), "spec.name",
			"the pool's name in DigitalOcean is spec.nodePoolName; metadata.name names the manifest and its stack"},
		{"in a Civo cluster's spec", &civocluster.CivoKubernetesClusterStackInput{}, inSpec(civoCluster), "spec.name",
			"the cluster's name in Civo is spec.clusterName; metadata.name names the manifest and its stack"},
		{"in a Civo default pool, which Civo names", &civocluster.CivoKubernetesClusterStackInput{},
			strings.Replace(civoCluster, "  defaultNodePool:\n", "  defaultNodePool:\n    name: x\n", 1), "spec.defaultNodePool.name",
			"name belongs to metadata.name, which names the manifest and its stack; Civo names this pool itself"},
		{"at the top of a Civo pool", &civopool.CivoKubernetesNodePoolStackInput{}, top(civoPool), "name",
			"name belongs to metadata.name, which names the manifest and its stack; the pool's name in Civo is spec.nodePoolName"},
		{"in a Civo pool's spec", &civopool.CivoKubernetesNodePoolStackInput{}, inSpec(civoPool), "spec.name",
			"the pool's name in Civo is spec.nodePoolName; metadata.name names the manifest and its stack"},
		{"at the top of a stack input", &civopool.CivoKubernetesNodePoolStackInput{}, "name: x\n" + civoPoolInput, "name",
			"name belongs to target.metadata.name, which names the manifest and its stack; the pool's name in Civo is target.spec.nodePoolName"},
		{"at the top of a stack input's target", &civopool.CivoKubernetesNodePoolStackInput{},
			strings.Replace(civoPoolInput, "  metadata:\n", "  name: x\n  metadata:\n", 1), "target.name",
			"name belongs to target.metadata.name, which names the manifest and its stack; the pool's name in Civo is target.spec.nodePoolName"},
		{"in a stack input's spec", &civopool.CivoKubernetesNodePoolStackInput{},
			strings.Replace(civoPoolInput, "  spec:\n", "  spec:\n    name: x\n", 1), "target.spec.name",
			"the pool's name in Civo is target.spec.nodePoolName; target.metadata.name names the manifest and its stack"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := only(t, tt.input, tt.text)
			if p.Path != tt.path || p.RuleID != "field.unknown" || p.Hint != tt.hint {
				t.Errorf("got  %s\nwant %s: unknown field (%s)", p, tt.path, tt.hint)
			}
		})
	}
}
