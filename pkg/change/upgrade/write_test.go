package upgrade_test

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
)

const manifest = `# The shop's cluster.
apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesCluster
metadata:
  name: shop   # the stack is shop-dev
  env: dev
spec:
  clusterName: shop
  region: fra1
  # Walked by clusterplane upgrade plan --write.
  kubernetesVersion: 1.30.10-do.0  # was 1.29
  defaultNodePool:
    size: s-2vcpu-4gb
    nodeCount: 2
`

func TestWriteChangesOnlyTheVersionAndTheGoal(t *testing.T) {
	cases := []struct {
		name, in, kind, mname, next, goal, want string
	}{
		{name: "first of two steps: the goal is kept in an annotation", in: manifest,
			kind: "DigitalOceanKubernetesCluster", mname: "shop", next: "1.31.9-do.2", goal: "1.32.2-do.0",
			want: strings.Replace(strings.Replace(manifest, "1.30.10-do.0  # was", "1.31.9-do.2  # was", 1),
				"  env: dev\n", "  env: dev\n  annotations:\n    clusterplane.dev/upgrade-to: \"1.32.2-do.0\"\n", 1)},
		{name: "the last step: the annotation goes, with its emptied mapping",
			in:   strings.Replace(manifest, "  env: dev\n", "  env: dev\n  annotations:\n    clusterplane.dev/upgrade-to: \"1.32.2-do.0\"\n", 1),
			kind: "DigitalOceanKubernetesCluster", mname: "shop", next: "1.32.2-do.0", goal: "1.32.2-do.0",
			want: strings.Replace(manifest, "1.30.10-do.0  # was", "1.32.2-do.0  # was", 1)},
		{name: "other annotations stay", in: strings.Replace(manifest, "  env: dev\n",
			"  env: dev\n  annotations:\n    team: shop # owners\n", 1),
			kind: "DigitalOceanKubernetesCluster", mname: "shop", next: "1.31.9-do.2", goal: "1.32",
			want: strings.Replace(strings.Replace(manifest, "1.30.10-do.0  # was", "1.31.9-do.2  # was", 1),
				"  env: dev\n", "  env: dev\n  annotations:\n    clusterplane.dev/upgrade-to: \"1.32\"\n    team: shop # owners\n", 1)},
		{name: "a quoted version stays quoted", in: strings.Replace(manifest, "1.30.10-do.0  #", "'1.30.10-do.0'  #", 1),
			kind: "DigitalOceanKubernetesCluster", mname: "shop", next: "1.32.2-do.0", goal: "1.32.2-do.0",
			want: strings.Replace(manifest, "1.30.10-do.0  #", "'1.32.2-do.0'  #", 1)},
		{name: "the second document of a file, a stack input",
			in:   manifest + "---\ntarget:\n  kind: CivoKubernetesCluster\n  metadata:\n    name: edge\n  spec:\n    kubernetesVersion: \"1.30.5-k3s1\"\nproviderConfig: {}\n",
			kind: "CivoKubernetesCluster", mname: "edge", next: "1.31.1-k3s1", goal: "1.31.1-k3s1",
			want: manifest + "---\ntarget:\n  kind: CivoKubernetesCluster\n  metadata:\n    name: edge\n  spec:\n    kubernetesVersion: \"1.31.1-k3s1\"\nproviderConfig: {}\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := upgrade.Write([]byte(c.in), c.kind, c.mname, c.next, c.goal)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != c.want {
				t.Errorf("got\n%s\nwant\n%s", out, c.want)
			}
		})
	}
}

func TestWriteRefusesAManifestItCannotFind(t *testing.T) {
	if _, err := upgrade.Write([]byte(manifest), "DigitalOceanKubernetesCluster", "other", "1.31.9-do.2", "1.31.9-do.2"); err == nil {
		t.Error("no error for a missing manifest")
	}
}

func TestAnEmptyAnnotationsLineIsRefusedSayingItCanGo(t *testing.T) {
	m := "kind: DigitalOceanKubernetesCluster\nmetadata:\n  name: a\n  annotations:\nspec:\n  kubernetesVersion: 1.31.9-do.2\n"
	_, err := upgrade.Write([]byte(m), "DigitalOceanKubernetesCluster", "a", "1.32.2-do.0", "1.33.1-do.0")
	if err == nil || !strings.Contains(err.Error(), "an empty annotations: line can go") {
		t.Errorf("got %v; want a refusal that says the empty annotations: line can go", err)
	}
}
