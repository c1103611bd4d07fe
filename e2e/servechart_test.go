//go:build e2e

package e2e_test

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
	drivers "github.com/clusterplane/clusterplane/pkg/cloud/clouds"
)

// serveChart is the serve chart, deploy/chart; its values matrix is in its ci folder.
var serveChart = filepath.Join("deploy", "chart")

var (
	chartRendererOnce sync.Once
	chartRenderer     string
	chartRendererErr  error
	// chartRendererDir holds the renderer, removed by TestMain.
	chartRendererDir string
)

// renderServeChart is the chart rendered with the values files, as `helm template` prints it:
// by tools/servechart (Helm's engine, a module of its own, so that Helm stays out of this one).
func renderServeChart(t *testing.T, valueFiles ...string) []byte {
	t.Helper()
	chartRendererOnce.Do(func() {
		dir, err := os.MkdirTemp("", "clusterplane-e2e-servechart")
		chartRendererDir = dir
		if err != nil {
			chartRendererErr = err
			return
		}
		chartRenderer = filepath.Join(dir, "servechart")
		build := exec.Command("go", "build", "-o", chartRenderer, ".")
		build.Dir = filepath.Join(root, "tools", "servechart")
		if out, err := build.CombinedOutput(); err != nil {
			chartRendererErr = fmt.Errorf("build tools/servechart: %v\n%s", err, out)
		}
	})
	if chartRendererErr != nil {
		t.Fatal(chartRendererErr)
	}
	args := []string{"-chart", filepath.Join(root, serveChart), "-name", "clusterplane", "-namespace", "clusterplane"}
	for _, f := range valueFiles {
		args = append(args, "-f", f)
	}
	out, err := exec.Command(chartRenderer, args...).Output()
	if err != nil {
		t.Fatalf("render the serve chart with %v: %v", valueFiles, err)
	}
	return out
}

// serviceMonitorCRD is the least of the Prometheus Operator's ServiceMonitor CRD that the API
// server needs to accept the chart's: the kind, and the fields the chart writes, typed.
const serviceMonitorCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: servicemonitors.monitoring.coreos.com
spec:
  group: monitoring.coreos.com
  scope: Namespaced
  names: {kind: ServiceMonitor, listKind: ServiceMonitorList, plural: servicemonitors, singular: servicemonitor}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [selector, endpoints]
            properties:
              selector:
                type: object
                properties:
                  matchLabels: {type: object, additionalProperties: {type: string}}
              endpoints:
                type: array
                items:
                  type: object
                  properties:
                    port: {type: string}
                    path: {type: string}
                    interval: {type: string, pattern: '^(0|(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$'}
`

// Every values file of the chart's matrix renders objects the real API server accepts, applied
// server-side in a dry run with strict field validation. Then serve, started with exactly the
// environment and arguments of the default rendering's Deployment (the Secrets' keys given the
// test's values, the pod's folders the test's), on a throwaway PostgreSQL for its database and
// for the Pulumi backend and the loopback DigitalOcean, answers the probes' paths and creates a
// cluster through its API until Ready.
// Promise: chart-renders-accepted-and-serves
func TestTheServeChartIsAcceptedByTheAPIServerAndItsDeploymentCreatesACluster(t *testing.T) {
	t.Parallel()
	k := newKube(t)
	k.must("POST", "/api/v1/namespaces", map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "clusterplane"}})
	crd := filepath.Join(k.dir, "servicemonitor-crd.yaml")
	if err := os.WriteFile(crd, []byte(serviceMonitorCRD), 0o600); err != nil {
		t.Fatal(err)
	}
	k.installCRDs([]string{crd})
	matrix, err := filepath.Glob(filepath.Join(root, serveChart, "ci", "*-values.yaml"))
	if err != nil || len(matrix) < 5 {
		t.Fatalf("want the values matrix in %s/ci, found %v (%v)", serveChart, matrix, err)
	}
	for _, values := range matrix {
		objects := yamlObjects(t, renderServeChart(t, values))
		if n := appliedServerSide(t, k, objects, filepath.Base(values)); n != len(objects) || n == 0 {
			t.Errorf("%s: the API server accepted %d objects of the %d rendered", filepath.Base(values), n, len(objects))
		}
	}

	e := newEnv(t)
	pg := pgtest.Start(t)
	db := pg.Database("serve")
	secrets := chartSecrets(db, pg.Database("state"))
	port := lowPort(t)
	a := e.startChartServe(renderedDeployment(t, e, port, "default", "clusterplane"), secrets)
	a.token = e.serveToken(db)
	for _, path := range []string{"/healthz", "/readyz"} {
		if resp, err := http.Get(a.url + path); err != nil || resp.StatusCode != 200 {
			t.Errorf("GET %s, the chart's probe: %v %v", path, resp, err)
		} else {
			resp.Body.Close()
		}
	}
	code, c := a.call("POST", "/api/v1/clusters", `{"name": "chart-fra1", "spec": {"platform": {"type": "digitalocean",
		"digitalocean": {"region": "fra1", "kubernetesVersion": "1.31.1-do.5", "defaultNodePool": {"size": "s-2vcpu-4gb", "nodeCount": 1}}}}}`)
	if code != 201 {
		t.Fatalf("create the cluster: %d %v", code, c)
	}
	a.waitStatus("/api/v1/clusters/"+c["id"].(string), "True")
	if _, ok := e.do.ClusterNamed("chart-fra1"); !ok {
		t.Fatal("Ready, yet DigitalOcean has no cluster chart-fra1")
	}

	// A second replica on the same database, rendered with the policy of the matrix: the
	// ConfigMap's rules reach it through the mount --policy reads, and refuse a body they deny.
	withPolicy := e.startChartServe(renderedDeployment(t, e, lowPort(t), "policy", "clusterplane"), secrets)
	withPolicy.token = a.token
	code, out := withPolicy.call("POST", "/api/v1/clusters", `{"name": "chart-ams3", "spec": {"platform": {"type": "digitalocean",
		"digitalocean": {"region": "ams3", "kubernetesVersion": "1.31.1-do.5", "defaultNodePool": {"size": "s-2vcpu-4gb", "nodeCount": 1}}}}}`)
	if code != 400 || !strings.Contains(fmt.Sprint(out), "only-frankfurt") {
		t.Errorf("a cluster in ams3 through the replica with the chart's policy: %d %v, want 400 naming only-frankfurt", code, out)
	}
}

// chartSecrets are the test's values of the keys of the Secret the chart's defaults name.
func chartSecrets(db, backend string) map[string]string {
	return map[string]string{
		"clusterplane-serve/database-url":             db,
		"clusterplane-serve/pulumi-backend-url":       backend,
		"clusterplane-serve/pulumi-config-passphrase": "e2e-passphrase",
		"clusterplane-serve/digitalocean-token":       doToken,
		"clusterplane-serve/civo-token":               civoToken,
	}
}

// With the split values, the API Deployment's replica (no workers) takes a cluster and the
// worker Deployment's replica deploys it, each started as its rendered container runs (each a
// rendering of its own, for a port of its own on this one machine).
// Promise: chart-split-api-and-workers
func TestTheChartsSplitDeploymentsTakeAClusterAtTheAPIAndDeployItInTheWorker(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pg := pgtest.Start(t)
	db := pg.Database("serve")
	secrets := chartSecrets(db, pg.Database("state"))
	a := e.startChartServe(renderedDeployment(t, e, lowPort(t), "split", "clusterplane"), secrets)
	if !slices.Contains(a.cmd.Args, "--workers=0") {
		t.Fatalf("the split API replica runs %v, want --workers=0", a.cmd.Args)
	}
	e.startChartServe(renderedDeployment(t, e, lowPort(t), "split", "clusterplane-worker"), secrets)
	a.token = e.serveToken(db)
	code, c := a.call("POST", "/api/v1/clusters", `{"name": "split-fra1", "spec": {"platform": {"type": "digitalocean",
		"digitalocean": {"region": "fra1", "kubernetesVersion": "1.31.1-do.5", "defaultNodePool": {"size": "s-2vcpu-4gb", "nodeCount": 1}}}}}`)
	if code != 201 {
		t.Fatalf("create the cluster: %d %v", code, c)
	}
	a.waitStatus("/api/v1/clusters/"+c["id"].(string), "True")
	if _, ok := e.do.ClusterNamed("split-fra1"); !ok {
		t.Fatal("Ready, yet DigitalOcean has no cluster split-fra1")
	}
}

// applyPaths are the REST paths of the kinds the chart renders, in a namespace.
var applyPaths = map[string]string{
	"ConfigMap":           "/api/v1/namespaces/%s/configmaps/%s",
	"Deployment":          "/apis/apps/v1/namespaces/%s/deployments/%s",
	"PodDisruptionBudget": "/apis/policy/v1/namespaces/%s/poddisruptionbudgets/%s",
	"Service":             "/api/v1/namespaces/%s/services/%s",
	"ServiceAccount":      "/api/v1/namespaces/%s/serviceaccounts/%s",
	"ServiceMonitor":      "/apis/monitoring.coreos.com/v1/namespaces/%s/servicemonitors/%s",
}

// appliedServerSide applies each object server-side in a dry run, with strict field validation
// (an unknown or duplicate field is an error), as `kubectl apply --server-side --dry-run=server`
// does, and fails the test for each the server refuses. It returns how many it accepted.
func appliedServerSide(t *testing.T, k *kube, objects []map[string]any, values string) int {
	t.Helper()
	accepted := 0
	for _, o := range objects {
		meta := o["metadata"].(map[string]any)
		path, ok := applyPaths[o["kind"].(string)]
		if !ok {
			t.Errorf("%s: the chart renders a %s, which the test cannot apply", values, o["kind"])
			continue
		}
		url := fmt.Sprintf(path, meta["namespace"], meta["name"]) + "?dryRun=All&fieldManager=e2e&fieldValidation=Strict&force=true"
		code, body := k.tryWith("PATCH", url, o, "application/apply-patch+yaml")
		if code < 200 || code > 299 {
			t.Errorf("%s: the API server refused %s/%s: %d %s", values, o["kind"], meta["name"], code, body)
			continue
		}
		accepted++
	}
	return accepted
}

// chartPod is the serve container of a rendered Deployment, and the ConfigMaps rendered beside it.
type chartPod struct {
	container  map[string]any
	volumes    []any
	configMaps map[string]map[string]any
}

// renderedDeployment renders the chart with a values file of its matrix, and the loopback
// clouds' URLs and a free port as a user's values file would give them, and returns the pod of
// its Deployment of that name.
func renderedDeployment(t *testing.T, e *env, port int, matrix, name string) chartPod {
	t.Helper()
	var values strings.Builder
	fmt.Fprintf(&values, "port: %d\nclouds:\n", port)
	for _, d := range drivers.All() {
		fmt.Fprintf(&values, "  %s:\n    apiURL: %q\n", d.ID(), e.loopbacks[d.ID()].URL())
	}
	file := filepath.Join(e.dir, fmt.Sprintf("loopback-%d-values.yaml", port))
	if err := os.WriteFile(file, []byte(values.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	pod := chartPod{configMaps: map[string]map[string]any{}}
	for _, o := range yamlObjects(t, renderServeChart(t, filepath.Join(root, serveChart, "ci", matrix+"-values.yaml"), file)) {
		switch o["kind"] {
		case "ConfigMap":
			pod.configMaps[o["metadata"].(map[string]any)["name"].(string)], _ = o["data"].(map[string]any)
		case "Deployment":
			if o["metadata"].(map[string]any)["name"] != name {
				continue
			}
			spec := o["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
			pod.container = spec["containers"].([]any)[0].(map[string]any)
			pod.volumes, _ = spec["volumes"].([]any)
		}
	}
	if pod.container == nil {
		t.Fatalf("the chart rendered with %s rendered no Deployment %s", matrix, name)
	}
	return pod
}

// imageBinaries is a folder laid out as the clusterplane image's /usr/local/bin (tools/images):
// clusterplane, the Pulumi CLI and each provider plugin, where the engine finds them on PATH.
func imageBinaries(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "usr-local-bin")
	links := map[string]string{
		"clusterplane": filepath.Join(binaries(t), "clusterplane"),
		"pulumi":       filepath.Join(root, ".engine", "bin", "pulumi"),
	}
	plugins, err := filepath.Glob(filepath.Join(root, ".engine", "plugins", "pulumi-resource-*"))
	if err != nil || len(plugins) == 0 {
		t.Fatalf("no provider plugin in .engine/plugins (make engine builds them): %v", err)
	}
	for _, p := range plugins {
		links[filepath.Base(p)] = p
	}
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

// imageEnv is the clusterplane image's own environment (tools/images, serveSpec), which the
// container starts with before the Deployment's; PATH is the folder imageBinaries lays out.
func imageEnv(bin string) []string {
	return []string{"PATH=" + bin, "HOME=/home/clusterplane", "PULUMI_SKIP_UPDATE_CHECK=true",
		"PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true"}
}

// podFolders gives each of the container's mounts a folder of the test's: an emptyDir an empty
// one, a ConfigMap's a folder of its files. It returns the mount paths, longest first, with their
// folders.
func podFolders(t *testing.T, dir string, pod chartPod) [][2]string {
	t.Helper()
	sources := map[string]map[string]any{}
	for _, v := range pod.volumes {
		v := v.(map[string]any)
		sources[v["name"].(string)] = v
	}
	var out [][2]string
	for i, m := range pod.container["volumeMounts"].([]any) {
		m := m.(map[string]any)
		folder := filepath.Join(dir, fmt.Sprintf("mount-%d", i))
		if err := os.MkdirAll(folder, 0o700); err != nil {
			t.Fatal(err)
		}
		src := sources[m["name"].(string)]
		switch {
		case src["emptyDir"] != nil:
		case src["configMap"] != nil:
			name := src["configMap"].(map[string]any)["name"].(string)
			data, ok := pod.configMaps[name]
			if !ok {
				t.Fatalf("the pod mounts the ConfigMap %s, which the chart did not render", name)
			}
			for file, text := range data {
				if err := os.WriteFile(filepath.Join(folder, file), []byte(text.(string)), 0o600); err != nil {
					t.Fatal(err)
				}
			}
		default:
			t.Fatalf("the pod mounts %v, a volume the test cannot stand in for", src)
		}
		out = append(out, [2]string{m["mountPath"].(string), folder})
	}
	slices.SortFunc(out, func(a, b [2]string) int { return len(b[0]) - len(a[0]) })
	return out
}

// inFolders is a path of the container's file system as the test's folder that stands for it.
func inFolders(folders [][2]string, s string) string {
	for _, f := range folders {
		if s == f[0] || strings.HasPrefix(s, f[0]+"/") {
			return f[1] + strings.TrimPrefix(s, f[0])
		}
		if flag, path, ok := strings.Cut(s, "="); ok && strings.HasPrefix(flag, "--") && (path == f[0] || strings.HasPrefix(path, f[0]+"/")) {
			return flag + "=" + f[1] + strings.TrimPrefix(path, f[0])
		}
	}
	return s
}

// containerEnv is the container's environment: the image's, then the Deployment's, each Secret's
// key given the test's value, each of the pod's folders the test's.
func containerEnv(t *testing.T, pod chartPod, bin string, folders [][2]string, secrets map[string]string) []string {
	t.Helper()
	vars := imageEnv(bin)
	for _, e := range pod.container["env"].([]any) {
		e := e.(map[string]any)
		name := e["name"].(string)
		if v, ok := e["value"].(string); ok {
			vars = append(vars, name+"="+inFolders(folders, v))
			continue
		}
		ref := e["valueFrom"].(map[string]any)["secretKeyRef"].(map[string]any)
		v, ok := secrets[ref["name"].(string)+"/"+ref["key"].(string)]
		if !ok {
			t.Fatalf("%s comes from the Secret %v, which the test does not hold", name, ref)
		}
		vars = append(vars, name+"="+v)
	}
	if pod.container["envFrom"] != nil {
		t.Fatalf("the pod takes variables from %v, which the test does not hold", pod.container["envFrom"])
	}
	return vars
}

// startChartServe starts the image's entrypoint, clusterplane, as the chart's container runs
// it: its arguments and environment, in its working folder. It returns once serve listens.
func (e *env) startChartServe(pod chartPod, secrets map[string]string) *api {
	e.t.Helper()
	// Each replica its own folders, as each pod has its own.
	dir, err := os.MkdirTemp(e.dir, "pod-")
	if err != nil {
		e.t.Fatal(err)
	}
	folders := podFolders(e.t, dir, pod)
	bin := imageBinaries(e.t, dir)
	var args []string
	for _, a := range pod.container["args"].([]any) {
		args = append(args, inFolders(folders, a.(string)))
	}
	cmd := exec.Command(filepath.Join(bin, "clusterplane"), args...)
	cmd.Env = containerEnv(e.t, pod, bin, folders, secrets)
	cmd.Dir = inFolders(folders, pod.container["workingDir"].(string))
	a, listening := e.runServe(cmd, "", syscall.SIGTERM)
	// serve names the address it listens on, all of the pod's: the test calls it on loopback.
	addr := a.listened(listening)
	a.url = "http://127.0.0.1:" + addr[strings.LastIndex(addr, ":")+1:]
	return a
}
