//go:build e2e

package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// The Karpenter e2e tests run Karpenter core, as a separate process, against the real control
// plane `make kube` builds (newKubeCluster): its CRDs applied, an operator binary started with the
// admin's kubeconfig, and pending pods for it to provision for. tools/kube/karpenter is the module
// that pins Karpenter core (the version karpenter/go.mod requires) and builds its kwok provider,
// whose nodes kwok runs; a provider of ours is started the same way.

var (
	karpenterBuild    sync.Once
	karpenterBinDir   string
	karpenterBuildErr error
)

// karpenterModule is tools/kube/karpenter, which requires Karpenter core.
func karpenterModule() string { return filepath.Join(root, "tools", "kube", "karpenter") }

// karpenterCoreDir is Karpenter core's module in the module cache: where its CRDs are.
func karpenterCoreDir(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/karpenter")
	cmd.Dir, cmd.Env = karpenterModule(), append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("find Karpenter core's module: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// karpenterKwok builds Karpenter core's kwok provider once per test binary: a few seconds from a
// warm build cache, about 80 s cold.
func karpenterKwok(t *testing.T) string {
	t.Helper()
	karpenterBuild.Do(func() {
		karpenterBinDir, karpenterBuildErr = os.MkdirTemp("", "karpenter-e2e-bin")
		if karpenterBuildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(karpenterBinDir, "karpenter-kwok"), "sigs.k8s.io/karpenter/kwok")
		cmd.Dir, cmd.Env = karpenterModule(), append(os.Environ(), "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			karpenterBuildErr = fmt.Errorf("build Karpenter's kwok provider: %v\n%s", err, out)
		}
	})
	if karpenterBuildErr != nil {
		t.Fatal(karpenterBuildErr)
	}
	return filepath.Join(karpenterBinDir, "karpenter-kwok")
}

// karpenterCoreCRDs are Karpenter core's CRDs: NodePool, NodeClaim, NodeOverlay.
func karpenterCoreCRDs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(karpenterCoreDir(t), "pkg", "apis", "crds", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in Karpenter core's module (%v)", err)
	}
	return files
}

// operator is a Karpenter operator process: kill it with kill -9, or let the test's end stop it.
type operator struct {
	cmd  *exec.Cmd
	done chan struct{}
	log  string
}

// startOperator starts binary as a Karpenter operator against the control plane, with the
// admin's kubeconfig, no leader election, its probes on free ports and env added, and waits until
// its readiness probe answers. It stops with the test.
func startOperator(t *testing.T, k *kube, name, binary string, env ...string) *operator {
	t.Helper()
	kubeconfig := filepath.Join(k.dir, name+".kubeconfig")
	if err := os.WriteFile(kubeconfig, k.kubeconfig(), 0o600); err != nil {
		t.Fatal(err)
	}
	probe := lowPort(t)
	op := &operator{log: filepath.Join(k.dir, name+".log")}
	logf, err := os.OpenFile(op.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	op.cmd = exec.Command(binary)
	op.cmd.Stdout, op.cmd.Stderr = logf, logf
	op.cmd.SysProcAttr = procattr()
	op.cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "DISABLE_LEADER_ELECTION=true",
		fmt.Sprintf("METRICS_PORT=%d", lowPort(t)), fmt.Sprintf("HEALTH_PROBE_PORT=%d", probe),
		// Short batching windows: the pods of one test arrive together.
		"BATCH_IDLE_DURATION=1s", "BATCH_MAX_DURATION=3s")
	op.cmd.Env = append(op.cmd.Env, env...)
	if err := op.cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("start %s: %v", name, err)
	}
	op.done = make(chan struct{})
	go func() { _ = op.cmd.Wait(); logf.Close(); close(op.done) }()
	t.Cleanup(func() {
		op.kill()
		if t.Failed() {
			data, _ := os.ReadFile(op.log)
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			if len(lines) > 25 {
				lines = lines[len(lines)-25:]
			}
			t.Logf("%s, last lines:\n%s", name, strings.Join(lines, "\n"))
		}
	})
	waitFor(t, 2*time.Minute, name+" ready", func() bool {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", probe))
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return op
}

// kill stops the operator at once (SIGKILL to its process group) and waits until it is gone.
func (o *operator) kill() {
	killGroup(o.cmd)
	<-o.done
}

// pendingPods creates namespace ns and a Deployment "web" of replicas pods each requesting cpu
// and memory, which no node yet has room for.
func pendingPods(t *testing.T, cs kubernetes.Interface, ns string, replicas int32, cpu, memory string) {
	t.Helper()
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"app": "web"}
	requests := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "web", Image: "example.invalid/web:1",
						Resources: corev1.ResourceRequirements{Requests: requests}}},
					TerminationGracePeriodSeconds: new(int64),
				},
			},
		},
	}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// scale sets the replicas of ns's Deployment "web", tried again when the Deployment changed
// between its read and its write: the Deployment controller writes it too, and a test that runs
// for minutes meets that race.
func scale(t *testing.T, cs kubernetes.Interface, ns string, replicas int32) {
	t.Helper()
	ctx := context.Background()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		s, err := cs.AppsV1().Deployments(ns).GetScale(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return err
		}
		s.Spec.Replicas = replicas
		_, err = cs.AppsV1().Deployments(ns).UpdateScale(ctx, "web", s, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("scale %s's web to %d: %v", ns, replicas, err)
	}
}

// runningPods counts ns's pods that are bound to a node and Running.
func runningPods(t *testing.T, cs kubernetes.Interface, ns string) int {
	t.Helper()
	pods, err := cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" && p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			n++
		}
	}
	return n
}

// nodeClaim is what the tests read of a Karpenter NodeClaim.
type nodeClaim struct {
	Name         string
	ProviderID   string
	NodeName     string
	InstanceType string
	// Candidates are the sizes Karpenter found the pods fit on: the NodeClaim's instance-type
	// requirement, from which the provider is to launch the cheapest.
	Candidates  []string
	Initialized bool
	Drifted     bool
	// Deleting says Karpenter has started to delete the NodeClaim (its deletionTimestamp is set).
	Deleting bool
}

// nodeClaims are the control plane's NodeClaims.
func (k *kube) nodeClaims() []nodeClaim {
	k.t.Helper()
	var list struct {
		Items []struct {
			Metadata struct {
				Name              string            `json:"name"`
				Labels            map[string]string `json:"labels"`
				DeletionTimestamp string            `json:"deletionTimestamp"`
			} `json:"metadata"`
			Spec struct {
				Requirements []struct {
					Key    string   `json:"key"`
					Values []string `json:"values"`
				} `json:"requirements"`
			} `json:"spec"`
			Status map[string]any `json:"status"`
		} `json:"items"`
	}
	code, body := k.try("GET", "/apis/karpenter.sh/v1/nodeclaims", nil)
	if code != http.StatusOK {
		k.t.Fatalf("list NodeClaims: %d %s", code, body)
	}
	if err := json.Unmarshal(body, &list); err != nil {
		k.t.Fatal(err)
	}
	var out []nodeClaim
	for _, it := range list.Items {
		obj := map[string]any{"status": it.Status}
		providerID, _ := it.Status["providerID"].(string)
		nodeName, _ := it.Status["nodeName"].(string)
		claim := nodeClaim{Name: it.Metadata.Name, ProviderID: providerID, NodeName: nodeName,
			InstanceType: it.Metadata.Labels[corev1.LabelInstanceTypeStable],
			Initialized:  conditionTrue(obj, "Initialized"), Drifted: conditionTrue(obj, "Drifted"),
			Deleting: it.Metadata.DeletionTimestamp != ""}
		for _, r := range it.Spec.Requirements {
			if r.Key == corev1.LabelInstanceTypeStable {
				claim.Candidates = r.Values
			}
		}
		out = append(out, claim)
	}
	return out
}

// nodePool is a Karpenter NodePool of the given NodeClass that consolidates a node as soon as it
// is empty or under-used, with no disruption budget in the way.
func nodePool(name, group, kind, nodeClass string) map[string]any {
	return map[string]any{
		"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"template": map[string]any{"spec": map[string]any{
				"nodeClassRef": map[string]any{"group": group, "kind": kind, "name": nodeClass},
				"requirements": []any{map[string]any{"key": "karpenter.sh/capacity-type", "operator": "In", "values": []any{"on-demand"}}},
			}},
			"disruption": map[string]any{
				"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s",
				"budgets": []any{map[string]any{"nodes": "100%"}},
			},
		},
	}
}

// setReady writes a Ready=True condition into a custom resource's status (path is its URL).
func (k *kube) setReady(path string) {
	k.t.Helper()
	now := time.Now().UTC().Format(time.RFC3339)
	k.tryWith("PATCH", path+"/status", map[string]any{"status": map[string]any{"conditions": []any{map[string]any{
		"type": "Ready", "status": "True", "reason": "Ready", "message": "", "lastTransitionTime": now,
	}}}}, "application/merge-patch+json")
}
