package fakedo_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/digitalocean/godo"
)

func TestClusterlintRunsAnswerWhatTheTestSet(t *testing.T) {
	d, c := start(t)
	ctx := context.Background()
	id := d.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "fra1", VersionSlug: "1.31.1-do.5"})
	d.SetClusterlint(id, []godo.ClusterlintDiagnostic{{CheckName: "bare-pods", Severity: "warning", Message: "a bare pod",
		Object: &godo.ClusterlintObject{Name: "p", Kind: "Pod", Namespace: "default"}}})
	runID, _, err := c.Kubernetes.RunClusterlint(ctx, id, &godo.KubernetesRunClusterlintRequest{})
	if err != nil || runID == "" {
		t.Fatalf("run clusterlint: %q %v", runID, err)
	}
	diags, _, err := c.Kubernetes.GetClusterlintResults(ctx, id, &godo.KubernetesGetClusterlintRequest{RunId: runID})
	if err != nil {
		t.Fatalf("get the results: %v", err)
	}
	if len(diags) != 1 || diags[0].CheckName != "bare-pods" || diags[0].Object.Kind != "Pod" {
		t.Errorf("diagnostics %+v", diags)
	}
	if _, _, err := c.Kubernetes.GetClusterlintResults(ctx, "nope", &godo.KubernetesGetClusterlintRequest{RunId: runID}); err == nil {
		t.Error("another cluster's run was answered")
	} else {
		apiError(t, err, http.StatusNotFound)
	}
}

func TestSetKubeconfigServesTheTestsKubeconfig(t *testing.T) {
	d, c := start(t)
	ctx := context.Background()
	id := d.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "fra1", VersionSlug: "1.31.1-do.5"})
	d.SetKubeconfig(id, []byte("apiVersion: v1\nkind: Config\n# the test's\n"))
	cfg, _, err := c.Kubernetes.GetKubeConfig(ctx, id, nil)
	if err != nil || string(cfg.KubeconfigYAML) != "apiVersion: v1\nkind: Config\n# the test's\n" {
		t.Errorf("kubeconfig %q, %v", cfg.KubeconfigYAML, err)
	}
	d.SetKubeconfig(id, nil)
	if cfg, _, err = c.Kubernetes.GetKubeConfig(ctx, id, nil); err != nil || string(cfg.KubeconfigYAML) == "apiVersion: v1\nkind: Config\n# the test's\n" {
		t.Errorf("after nil: %q, %v", cfg.KubeconfigYAML, err)
	}
}
