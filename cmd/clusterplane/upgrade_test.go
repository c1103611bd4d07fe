package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	civodriver "github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/digitalocean/godo"
)

// flowSchemaServer is a Kubernetes API server that serves, to a token, FlowSchemas: one last
// applied at flowcontrol.apiserver.k8s.io/v1beta3 when legacy, else none; its kubeconfig.
func flowSchemaServer(t *testing.T, token string, legacy bool) []byte {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var items []any
		switch r.URL.Path {
		case "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas":
			if !legacy {
				break
			}
			items = append(items, map[string]any{"metadata": map[string]any{"name": "legacy-batch", "annotations": map[string]any{
				"kubectl.kubernetes.io/last-applied-configuration": `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1beta3","kind":"FlowSchema"}`}}})
		case "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations":
		default:
			w.WriteHeader(http.StatusNotFound)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"items": items, "metadata": map[string]any{}})
	}))
	t.Cleanup(srv.Close)
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	return []byte(fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: %s\n    certificate-authority-data: %s\n"+
		"contexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {token: %s}\n", srv.URL, ca, token))
}

// Promise: upgrade-plan-names-objects-of-removed-apis
// Promise: upgrade-plan-exits-3
// Promise: upgrade-plan-blockers
func TestUpgradePlanOrdersTheFleetBlocksOnARemovedAPIAndWritesOnlyWhatNothingBlocks(t *testing.T) {
	const doToken, civoToken, kubeToken = "dop_v1_upgrade-test", "civo-upgrade-test", "kube-admin-s3cret"
	do := fakedo.New(t, doToken)
	civo := fakecivo.New(t, civoToken, "fra1")
	dev := do.SeedCluster(godo.KubernetesCluster{Name: "shop-dev", RegionSlug: "fra1", VersionSlug: "1.31.1-do.5"})
	do.SetKubeconfig(dev, flowSchemaServer(t, kubeToken, false))
	prod := do.SeedCluster(godo.KubernetesCluster{Name: "shop-prod", RegionSlug: "fra1", VersionSlug: "1.31.9-do.2"})
	do.SetKubeconfig(prod, flowSchemaServer(t, kubeToken, true))
	civo.SeedCluster(civogo.KubernetesCluster{Name: "edge-qa", Version: "1.29.8-k3s1", ClusterType: "k3s"})

	files := upgradeFleetManifests(t)
	dir := writeFiles(t, files)
	for env, value := range map[string]string{digitalocean.TokenEnv: doToken, digitalocean.APIURLEnv: do.URL(),
		civodriver.TokenEnv: civoToken, civodriver.APIURLEnv: civo.URL()} {
		t.Setenv(env, value)
	}
	// The plan reads each cluster's kubeconfig into memory: no file where the command may write holds one.
	home := t.TempDir()
	for _, env := range []string{"HOME", "TMPDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"} {
		t.Setenv(env, home)
	}
	defer noFileHolds(t, kubeToken, home, dir)
	upgradePlan := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := newApp(registry.Kinds(), strings.NewReader(""), &stdout, &stderr).run(append([]string{"upgrade", "plan", dir}, args...))
		for _, secret := range []string{doToken, civoToken, kubeToken} {
			if strings.Contains(stdout.String()+stderr.String(), secret) {
				t.Errorf("upgrade plan %v prints a secret", args)
			}
		}
		return code, stdout.String(), stderr.String()
	}

	code, out, stderr := upgradePlan("-o", "json")
	if code != exitcode.Blocked {
		t.Errorf("exit %d, want 3 for the removed API in use\n%s%s", code, out, stderr)
	}
	checkUpgradePlanJSON(t, out)

	code, out, _ = upgradePlan("-o", "markdown")
	if code != exitcode.Blocked || !strings.Contains(out, "| 3 | `shop-prod`") || !strings.Contains(out, "FlowSchema `legacy-batch`") {
		t.Errorf("-o markdown = %d:\n%s", code, out)
	}

	code, _, stderr = upgradePlan("--write")
	if code != exitcode.Blocked || !strings.Contains(stderr, "b-dev.yaml: shop-dev kubernetesVersion 1.31.9-do.2") ||
		!strings.Contains(stderr, "c-qa.yaml: edge-qa kubernetesVersion 1.30.5-k3s1") ||
		!strings.Contains(stderr, "a-prod.yaml: shop-prod not written: the upgrade is blocked: ") || strings.Contains(stderr, "wrote "+filepath.Join(dir, "a-prod.yaml")) {
		t.Errorf("--write = %d: %s", code, stderr)
	}
	checkUpgradeWrites(t, dir, files)
}

// upgradeFleetManifests are the fleet's manifests by file name, each cluster's goal minors past what it runs.
func upgradeFleetManifests(t *testing.T) map[string]string {
	t.Helper()
	doCluster := readExample(t, "digitaloceankubernetescluster/minimal.yaml")
	cluster := func(name, env, version string) string {
		m := strings.Replace(doCluster, "  name: dev-fra1\n", "  name: "+name+"\n  env: "+env+"\n", 1)
		m = strings.Replace(m, "clusterName: dev-fra1", "clusterName: "+name, 1)
		return strings.Replace(m, "kubernetesVersion: 1.31.1-do.5", "kubernetesVersion: "+version, 1)
	}
	civoCluster := strings.Replace(strings.Replace(readExample(t, "civokubernetescluster/minimal.yaml"),
		"  name: dev-fra1\n", "  name: edge-qa\n  env: qa\n", 1), "clusterName: dev-fra1", "clusterName: edge-qa", 1)
	civoCluster = strings.Replace(civoCluster, "kubernetesVersion: 1.30.5-k3s1", "kubernetesVersion: 1.31.1-k3s1", 1)
	return map[string]string{
		"a-prod.yaml": cluster("shop-prod", "prod", "1.33.1-do.0"),
		"b-dev.yaml":  cluster("shop-dev", "dev", "1.33.1-do.0"),
		"c-qa.yaml":   civoCluster,
		"pool.yaml":   readExample(t, "digitaloceankubernetesnodepool/minimal.yaml"),
	}
}

// checkUpgradePlanJSON checks the JSON plan orders dev, qa, prod and blocks prod alone on its FlowSchema.
func checkUpgradePlanJSON(t *testing.T, out string) {
	t.Helper()
	var plan struct {
		Plans []struct {
			Cluster, Running string
			Steps            []struct{ From, To string }
			Objects          []struct{ Name, APIVersion, RemovedIn string }
			Blockers         []string
		}
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatalf("-o json: %v\n%s", err, out)
	}
	var order []string
	for _, p := range plan.Plans {
		var steps []string
		for _, s := range p.Steps {
			steps = append(steps, s.To)
		}
		order = append(order, fmt.Sprintf("%s %s>%s blocked=%d", p.Cluster, p.Running, strings.Join(steps, ">"), len(p.Blockers)))
	}
	want := []string{"shop-dev 1.31.1-do.5>1.31.9-do.2>1.32.2-do.0>1.33.1-do.0 blocked=0", "edge-qa 1.29.8-k3s1>1.30.5-k3s1>1.31.1-k3s1 blocked=0",
		"shop-prod 1.31.9-do.2>1.32.2-do.0>1.33.1-do.0 blocked=1"}
	if strings.Join(order, "\n") != strings.Join(want, "\n") {
		t.Errorf("plans\n%s\nwant\n%s", strings.Join(order, "\n"), strings.Join(want, "\n"))
	}
	if p := plan.Plans[len(plan.Plans)-1]; len(p.Objects) != 1 || p.Objects[0].Name != "legacy-batch" || p.Objects[0].RemovedIn != "1.32" {
		t.Errorf("prod's objects %+v", p.Objects)
	}
}

// checkUpgradeWrites checks --write moved only the unblocked clusters one step and left prod untouched.
func checkUpgradeWrites(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	goal := func(file, from, to, goal string) string {
		return strings.Replace(strings.Replace(files[file], "kubernetesVersion: "+from, "kubernetesVersion: "+to, 1),
			"\nspec:\n", "\n  annotations:\n    clusterplane.dev/upgrade-to: \""+goal+"\"\nspec:\n", 1)
	}
	for name, want := range map[string]string{
		"a-prod.yaml": files["a-prod.yaml"], // blocked: untouched
		"b-dev.yaml":  goal("b-dev.yaml", "1.33.1-do.0", "1.31.9-do.2", "1.33.1-do.0"),
		"c-qa.yaml":   goal("c-qa.yaml", "1.31.1-k3s1", "1.30.5-k3s1", "1.31.1-k3s1"),
		"pool.yaml":   files["pool.yaml"],
	} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(data) != want {
			t.Errorf("%s after --write:\n%s\nwant\n%s", name, data, want)
		}
	}
}
