//go:build e2e

package e2e_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// The install, check and uninstall of docs/karpenter.md, run as a reader types them: the shell
// blocks marked `<!-- karpenter-install: run -->`, in the page's order, each with `bash -e -o
// pipefail` in a folder holding the chart as a clone has it (./karpenter/chart), with kubectl and
// helm on PATH, the admin's KUBECONFIG and the loopback DigitalOcean's token. The real control
// plane with kwok stands in for the cluster and the loopback DigitalOcean for the cloud.
//
// kubectl and helm are the real commands, v1.34.9 (the control plane's) and v3.19.5 (the version
// charttest renders with), built from their Go modules in tools/kube/cli by `make kube`: a helm shim or a render
// with Helm's engine would leave the release's install and uninstall untested, which is what
// the uninstall's promise rests on. No container runs here, so the chart's Deployment runs no
// operator: once the chart is installed the test starts karpenter-clusterplane as a process with
// the rendered Deployment's environment (its Secret's token, the ServiceAccount's own token and
// leader election in the release's namespace), pointed at the loopback cloud, and stops it when
// `helm uninstall` has deleted the Deployment, as Kubernetes stops the pod.
func TestTheKarpenterDocsInstallAndUninstallRunAsWritten(t *testing.T) {
	t.Parallel() // mostly waiting on Karpenter's and the clouds' timers
	blocks := karpenterInstallBlocks(t)
	if t.Failed() {
		t.FailNow() // a block the page does not mark: say so before a control plane starts
	}
	tools := karpenterCLI(t)
	k := newKubeCluster(t)
	c := doClusterForKarpenter(t, k, "platform-ams3-prod", "ams3")
	work, env := installSession(t, k, c, tools, blocks)
	steps := map[string]bool{}
	var metricsPort int
	for _, b := range blocks {
		if b.marker != "run" {
			continue
		}
		runInstallBlock(t, b, work, env)
		switch {
		case strings.Contains(b.text, "helm install "):
			steps["install"] = true
			metricsPort = startChartOperator(t, k, c)
		case strings.Contains(b.text, "kubectl rollout status deployment/inflate"):
			steps["workload"] = true
			if n := runningPods(t, k.clientset(), "default"); n != 3 {
				t.Errorf("the test Deployment's rollout finished with %d of its 3 pods running", n)
			}
			// The chart's own pods, which no node was free for either, may still be on their way.
			waitFor(t, 2*time.Minute, "the provider's pools holding exactly the NodeClaims' nodes", func() bool {
				pools, ids := c.karpenterPools()
				return len(pools) > 0 && slices.Equal(ids, claimedProviderIDs(k.nodeClaims()))
			})
			pools, _ := c.karpenterPools()
			t.Logf("the test Deployment runs on %d NodeClaims in %d pools of the provider's", len(k.nodeClaims()), len(pools))
			metricsShown(t, blocks, metricsPort)
		case strings.Contains(b.text, "helm uninstall "):
			steps["uninstall"] = true
			if pools, _ := c.karpenterPools(); len(pools) > 0 {
				t.Errorf("after the documented uninstall the loopback cloud still holds the provider's pools %+v", pools)
			}
			if n := len(k.nodeClaims()); n > 0 {
				t.Errorf("after the documented uninstall %d NodeClaims are left", n)
			}
			c.declaredUntouched(t)
		}
	}
	for _, step := range []string{"install", "workload", "uninstall"} {
		if !steps[step] {
			t.Errorf("docs/karpenter.md runs no %s block: the test found none marked run", step)
		}
	}
}

// installBlock is a fenced block of docs/karpenter.md and its karpenter-install marker.
type installBlock struct {
	line         int
	lang, marker string
	text         string
}

var (
	installMarker = regexp.MustCompile(`^<!--\s*karpenter-install:\s*(.*?)\s*-->$`)
	installFence  = regexp.MustCompile("^```([A-Za-z]*)$")
)

// karpenterInstallBlocks are the page's fenced blocks with their markers. Every shell block must
// carry one, run or skip with a reason, so that no new command escapes the test unsaid.
func karpenterInstallBlocks(t *testing.T) []installBlock {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "docs", "karpenter.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var out []installBlock
	marker := ""
	for i := 0; i < len(lines); i++ {
		if m := installMarker.FindStringSubmatch(lines[i]); m != nil {
			marker = m[1]
			continue
		}
		m := installFence.FindStringSubmatch(lines[i])
		if m == nil {
			if strings.TrimSpace(lines[i]) != "" && !strings.HasPrefix(lines[i], "<!--") {
				marker = "" // a marker is the comment right before its block
			}
			continue
		}
		b := installBlock{line: i + 1, lang: m[1], marker: marker}
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			b.text += lines[i] + "\n"
		}
		marker = ""
		problem := ""
		switch {
		case b.marker == "run" || b.marker == "values" || strings.HasPrefix(b.marker, "file ") && len(b.marker) > len("file "):
		case strings.HasPrefix(b.marker, "skip:") && strings.TrimSpace(b.marker[len("skip:"):]) != "":
		case b.marker == "" && b.lang != "sh":
		case b.marker == "":
			problem = "carries no <!-- karpenter-install: run --> or <!-- karpenter-install: skip: REASON -->"
		default:
			problem = fmt.Sprintf("has the unknown marker %q (run, skip: REASON, file NAME, values)", b.marker)
		}
		if problem != "" {
			t.Errorf("docs/karpenter.md:%d: the %s block %s", b.line, b.lang, problem)
		}
		out = append(out, b)
	}
	return out
}

// installSession is the reader's folder, with the chart where a clone has it and the files the
// page's file markers name, and the environment the blocks run in.
func installSession(t *testing.T, k *kube, c *karpenterCloud, tools string, blocks []installBlock) (string, []string) {
	t.Helper()
	work := t.TempDir()
	cp := exec.Command("cp", "-R", filepath.Join(root, "karpenter", "chart"), filepath.Join(work, "karpenter", "chart"))
	if err := os.MkdirAll(filepath.Join(work, "karpenter"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := cp.CombinedOutput(); err != nil {
		t.Fatalf("copy the chart: %v\n%s", err, out)
	}
	for _, b := range blocks {
		if name, ok := strings.CutPrefix(b.marker, "file "); ok {
			if err := os.WriteFile(filepath.Join(work, name), []byte(b.text), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	kubeconfig := filepath.Join(work, "admin.kubeconfig")
	if err := os.WriteFile(kubeconfig, k.kubeconfig(), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + tools + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + filepath.Join(work, "home"), "KUBECONFIG=" + kubeconfig, "LANG=C.UTF-8"}
	for _, e := range c.env {
		if strings.HasPrefix(e, "DIGITALOCEAN_") { // the token, and the API URL the page's check honours
			env = append(env, e)
		}
	}
	return work, env
}

// runInstallBlock runs one block with bash -e -o pipefail, failing the test with its output when
// it exits non-zero or leaves out a line its `# ` comments show it printing.
func runInstallBlock(t *testing.T, b installBlock, work string, env []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", b.text)
	cmd.Dir, cmd.Env = work, env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("docs/karpenter.md:%d: %v after %s\n%s\n--- its output:\n%s", b.line, err,
			time.Since(start).Round(time.Second), b.text, out)
	}
	for _, l := range strings.Split(b.text, "\n") {
		if want, ok := strings.CutPrefix(l, "# "); ok && !strings.Contains(string(out), want) {
			t.Errorf("docs/karpenter.md:%d: the block shows %q printed; it printed:\n%s", b.line, want, out)
		}
	}
	t.Logf("docs/karpenter.md:%d ran in %s", b.line, time.Since(start).Round(time.Second))
}

// karpenterCLI is the folder holding kubectl and helm, which `make kube` (tools/kube/build.sh)
// builds from tools/kube/cli into .engine/kube beside the control plane, with the same flags.
func karpenterCLI(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(root, ".engine", "kube")
	for _, name := range []string{"kubectl", "helm"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Fatalf("%s is not in .engine/kube (make kube builds it from tools/kube/cli): %v", name, err)
		}
	}
	return dir
}

// startChartOperator starts the provider as the chart's Deployment would run it, and stops it
// once the Deployment is deleted. It returns the operator's metrics port.
func startChartOperator(t *testing.T, k *kube, c *karpenterCloud) int {
	t.Helper()
	const ns, name = "karpenter", "karpenter-clusterplane"
	env := deploymentEnv(t, k, ns, name)
	var tr struct {
		Status struct{ Token string } `json:"status"`
	}
	decodeInto(t, k.must("POST", "/api/v1/namespaces/"+ns+"/serviceaccounts/"+name+"/token",
		map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": map[string]any{"expirationSeconds": 7200}}), &tr)
	kubeconfig := filepath.Join(k.dir, name+"-serviceaccount.kubeconfig")
	if err := os.WriteFile(kubeconfig, k.kubeconfigFor("system:serviceaccount:"+ns+":"+name, tr.Status.Token), 0o600); err != nil {
		t.Fatal(err)
	}
	metrics := lowPort(t)
	// In a pod, Karpenter finds the lease's namespace itself; out of one it is told (the docs'
	// Install). The chart's ports are replaced by free ones: 8080 is anyone's on a shared machine.
	env = append(env, "KUBECONFIG="+kubeconfig, "DISABLE_LEADER_ELECTION=false", "LEADER_ELECTION_NAMESPACE="+ns,
		fmt.Sprintf("METRICS_PORT=%d", metrics))
	for _, e := range c.env { // the loopback cloud stands in for DigitalOcean's API
		if strings.HasPrefix(e, "DIGITALOCEAN_API_URL=") {
			env = append(env, e)
		}
	}
	op := startOperator(t, k, name, karpenterProvider(t), env...)
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-done:
				return
			case <-time.After(500 * time.Millisecond):
			}
			if code, _ := k.try("GET", "/apis/apps/v1/namespaces/"+ns+"/deployments/"+name, nil); code == http.StatusNotFound {
				op.kill()
				return
			}
		}
	}()
	t.Cleanup(func() { close(done); <-stopped })
	return metrics
}

// deploymentEnv is the environment the Deployment's container gets, its Secret's keys read and
// the chart's probe port left to startOperator; never logged, since it holds the token.
func deploymentEnv(t *testing.T, k *kube, ns, name string) []string {
	t.Helper()
	var d struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Env []struct {
							Name      string
							Value     string
							ValueFrom *struct {
								FieldRef     *struct{ FieldPath string }
								SecretKeyRef *struct{ Name, Key string }
							}
						}
					}
				}
			}
		}
	}
	decodeInto(t, k.must("GET", "/apis/apps/v1/namespaces/"+ns+"/deployments/"+name, nil), &d)
	if len(d.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("the chart's Deployment has %d containers, want 1", len(d.Spec.Template.Spec.Containers))
	}
	var env []string
	for _, e := range d.Spec.Template.Spec.Containers[0].Env {
		switch {
		case e.Name == "HEALTH_PROBE_PORT" || e.Name == "METRICS_PORT":
		case e.ValueFrom == nil:
			env = append(env, e.Name+"="+e.Value)
		case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace":
			env = append(env, e.Name+"="+ns)
		case e.ValueFrom.SecretKeyRef != nil:
			var s struct{ Data map[string]string }
			decodeInto(t, k.must("GET", "/api/v1/namespaces/"+ns+"/secrets/"+e.ValueFrom.SecretKeyRef.Name, nil), &s)
			if v, ok := s.Data[e.ValueFrom.SecretKeyRef.Key]; ok { // optional: a cloud without a key is not served
				raw, err := base64.StdEncoding.DecodeString(v)
				if err != nil {
					t.Fatalf("the Secret's key %s: %v", e.ValueFrom.SecretKeyRef.Key, err)
				}
				env = append(env, e.Name+"="+string(raw))
			}
		default:
			t.Fatalf("the chart's Deployment sets %s from a source this test does not know", e.Name)
		}
	}
	return env
}

// metricsShown scrapes the operator's metrics and fails the test unless each metric the page's
// port-forward block greps for is there, as that grep would find it.
func metricsShown(t *testing.T, blocks []installBlock, port int) {
	t.Helper()
	grep := regexp.MustCompile(`grep -E '\^karpenter_\(([a-z_|]+)\)'`)
	var names []string
	for _, b := range blocks {
		if m := grep.FindStringSubmatch(b.text); m != nil {
			for _, n := range strings.Split(m[1], "|") {
				names = append(names, "karpenter_"+n)
			}
		}
	}
	if len(names) == 0 {
		t.Fatal("docs/karpenter.md shows no metrics to look for (grep -E '^karpenter_(...)')")
	}
	shown := scrape(t, fmt.Sprintf("http://127.0.0.1:%d", port), func(name string, _ map[string]string) string { return name })
	for _, n := range names {
		if _, ok := shown[n]; !ok {
			t.Errorf("the operator's metrics have no %s, which docs/karpenter.md shows", n)
		}
	}
}

// decodeInto reads an object the API server answered into v's fields.
func decodeInto(t *testing.T, o map[string]any, v any) {
	t.Helper()
	data, err := json.Marshal(o)
	if err == nil {
		err = json.Unmarshal(data, v)
	}
	if err != nil {
		t.Fatalf("read %v: %v", o["kind"], err)
	}
}
