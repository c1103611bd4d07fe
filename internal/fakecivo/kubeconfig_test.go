package fakecivo_test

import (
	"testing"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/internal/fakecivo"
)

func TestSetKubeconfigIsTheKubeconfigTheClusterReports(t *testing.T) {
	f := fakecivo.New(t, token, "LON1")
	id := f.SeedCluster(civogo.KubernetesCluster{Name: "edge", Version: "1.30.5-k3s1"})
	f.SetKubeconfig(id, []byte("apiVersion: v1\n# the test's\n"))
	cl, err := client(t, f, "LON1").GetKubernetesCluster(id)
	if err != nil {
		t.Fatal(err)
	}
	if cl.KubeConfig != "apiVersion: v1\n# the test's\n" {
		t.Errorf("kubeconfig %q", cl.KubeConfig)
	}
}
