package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	dopool "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
)

// poolTarget is a node pool stack whose cluster reads the stack of cluster (a name-env).
func poolTarget(name, cluster string) target {
	clusterName, env, _ := strings.Cut(cluster, "-")
	in := &dopool.DigitalOceanKubernetesNodePoolStackInput{Target: &dopool.DigitalOceanKubernetesNodePool{
		Metadata: &sharedv1.CloudResourceMetadata{Name: name},
		Spec: &dopool.DigitalOceanKubernetesNodePoolSpec{Cluster: sharedv1.StringValueFrom(&sharedv1.ValueFromRef{
			Kind: "DigitalOceanKubernetesNodePool", Name: clusterName, Env: env})},
	}}
	return target{file: name + ".yaml", input: in, project: "digitaloceankubernetesnodepool", stack: name}
}

func TestOrderPutsEveryStackAfterTheStacksItReferencesAndNamesBothEndsOfAProblem(t *testing.T) {
	none := func(string) (bool, error) { return false, nil }
	// Pools referencing pools stand in for pools referencing a cluster: only the keys matter.
	a, b, c := poolTarget("a", "b-x"), poolTarget("b-x", "c-y"), poolTarget("c-y", "")
	c.input.(*dopool.DigitalOceanKubernetesNodePoolStackInput).Target.Spec.Cluster = sharedv1.StringValue("id")
	sorted, deps, err := order([]target{a, b, c}, none)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sorted {
		got = append(got, s.stack)
	}
	if strings.Join(got, ",") != "c-y,b-x,a" || len(deps["digitaloceankubernetesnodepool/a"]) != 1 {
		t.Errorf("order = %v, deps %v; want c-y before b-x before a", got, deps)
	}

	if _, _, err := order([]target{poolTarget("a", "gone-x")}, none); err == nil || !strings.Contains(err.Error(), "a.yaml references stack digitaloceankubernetesnodepool/gone-x") {
		t.Errorf("a reference to nothing: %v", err)
	}
	if _, _, err := order([]target{poolTarget("a", "gone-x")}, func(string) (bool, error) { return true, nil }); err != nil {
		t.Errorf("a reference to an existing stack: %v", err)
	}
	unreachable := func(string) (bool, error) { return false, errors.New("PULUMI_CONFIG_PASSPHRASE is not set") }
	if _, _, err := order([]target{poolTarget("a", "gone-x")}, unreachable); err == nil ||
		!strings.Contains(err.Error(), "PULUMI_CONFIG_PASSPHRASE") || strings.Contains(err.Error(), "does not exist") {
		t.Errorf("a backend that cannot say: %v, want its own error, not that the stack does not exist", err)
	}
	x, y := poolTarget("x-1", "y-1"), poolTarget("y-1", "x-1")
	if _, _, err := order([]target{x, y}, none); err == nil || !strings.Contains(err.Error(), "cycle") ||
		!strings.Contains(err.Error(), "x-1.yaml") || !strings.Contains(err.Error(), "y-1.yaml") {
		t.Errorf("a cycle: %v", err)
	}
}

func TestADirectoryDeploysTheManifestsValidateChecksAndSkipsWhatValidateSkips(t *testing.T) {
	dir := t.TempDir()
	manifest, err := os.ReadFile(filepath.Join("..", "..", "examples", "digitaloceankubernetescluster", "minimal.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"cluster.yaml":   string(manifest),
		"configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n",
		"list.yaml":      "- a\n- b\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stderr strings.Builder
	a := newApp(programs, strings.NewReader(""), &strings.Builder{}, &stderr)
	targets := a.loadTargets([]string{dir}, "")
	if len(targets) != 1 || filepath.Base(targets[0].file) != "cluster.yaml" || a.code != 0 {
		t.Errorf("targets %v, exit %d, stderr %q: want only cluster.yaml, as validate checks only it", targets, a.code, stderr.String())
	}
}
