package reference_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	civocluster "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	civopool "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	docluster "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	dopool "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/reference"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"google.golang.org/protobuf/proto"
)

// readExample parses a manifest of examples/, changed by replacing old with new, as input.
func readExample(t *testing.T, kind, name string, input proto.Message, old, new string) reference.Manifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", kind, name))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), old, new, 1)
	if err := stackinput.Parse([]byte(text), name, input); err != nil {
		t.Fatalf("%s does not parse: %v", name, err)
	}
	return reference.Manifest{File: kind + "/" + name, Data: []byte(text), Input: input}
}

func TestAPoolInAnotherRegionThanItsClusterBesideItIsRefusedAtItsRegion(t *testing.T) {
	// The cluster platform-fra1 (env prod) in fra1, and pools that read it or another.
	cluster := func(old, new string) reference.Manifest {
		return readExample(t, "civokubernetescluster", "production.yaml", &civocluster.CivoKubernetesClusterStackInput{}, old, new)
	}
	pool := func(old, new string) reference.Manifest {
		return readExample(t, "civokubernetesnodepool", "cluster-by-reference.yaml", &civopool.CivoKubernetesNodePoolStackInput{}, old, new)
	}
	poolInput := func(old, new string) reference.Manifest {
		return readExample(t, "civokubernetesnodepool", "cluster-by-reference.stack-input.yaml", &civopool.CivoKubernetesNodePoolStackInput{}, old, new)
	}
	same := func() reference.Manifest { return cluster("", "") }
	lon1 := `civokubernetesnodepool/cluster-by-reference.yaml:22:11: spec.region: region "lon1" is not its cluster's: ` +
		`CivoKubernetesCluster platform-fra1 is in "fra1" (civokubernetescluster/production.yaml:26:11) ` +
		`(a pool is created in its cluster's region: write fra1)`
	tests := []struct {
		name      string
		manifests []reference.Manifest
		// want is the problem of the pool, "" for none.
		want string
	}{
		{"a pool in its cluster's region", []reference.Manifest{same(), pool("", "")}, ""},
		{"a pool in another region", []reference.Manifest{same(), pool("region: fra1", "region: lon1")}, lon1},
		{"a stack input's pool in another region", []reference.Manifest{same(), poolInput("region: fra1", "region: lon1")},
			`civokubernetesnodepool/cluster-by-reference.stack-input.yaml:26:13: target.spec.region: region "lon1" is not its cluster's: ` +
				`CivoKubernetesCluster platform-fra1 is in "fra1" (civokubernetescluster/production.yaml:26:11) ` +
				`(a pool is created in its cluster's region: write fra1)`},
		{"a pool read before its cluster", []reference.Manifest{pool("region: fra1", "region: lon1"), same()}, lon1},
		{"a pool whose cluster is not among them", []reference.Manifest{pool("region: fra1", "region: lon1")}, ""},
		{"a pool of a cluster of the same name in another env", []reference.Manifest{cluster("\n  env: prod\n", "\n  env: dev\n"), pool("region: fra1", "region: lon1")}, ""},
		{"a pool of a cluster of another name", []reference.Manifest{cluster("\n  name: platform-fra1\n", "\n  name: platform-lon1\n"), pool("region: fra1", "region: lon1")}, ""},
		{"a pool whose cluster is given by id", []reference.Manifest{same(),
			readExample(t, "civokubernetesnodepool", "minimal.yaml", &civopool.CivoKubernetesNodePoolStackInput{}, "region: fra1", "region: lon1")}, ""},
		{"a DigitalOcean pool, which has no region", []reference.Manifest{
			readExample(t, "digitaloceankubernetescluster", "production.yaml", &docluster.DigitalOceanKubernetesClusterStackInput{}, "", ""),
			readExample(t, "digitaloceankubernetesnodepool", "cluster-by-reference.yaml", &dopool.DigitalOceanKubernetesNodePoolStackInput{}, "", "")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var lines []string
			for i, problems := range reference.RegionMismatches(tt.manifests) {
				for _, p := range problems {
					if !strings.Contains(tt.manifests[i].File, "nodepool") {
						t.Errorf("the cluster has a problem: %s", p)
					}
					lines = append(lines, p.String())
				}
			}
			if strings.Join(lines, "\n") != tt.want {
				t.Errorf("got  %q\nwant %q", strings.Join(lines, "\n"), tt.want)
			}
		})
	}
}
