//go:build e2e

package e2e_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
)

// kubeClusterBinaries are the binaries a whole control plane needs beyond etcd and the API
// server, or a failure saying how to build them.
func kubeClusterBinaries(t *testing.T) (controllerManager, scheduler, kwok string) {
	t.Helper()
	dir := filepath.Join(root, ".engine", "kube")
	controllerManager, scheduler, kwok = filepath.Join(dir, "kube-controller-manager"), filepath.Join(dir, "kube-scheduler"), filepath.Join(dir, "kwok")
	for _, b := range []string{controllerManager, scheduler, kwok} {
		if _, err := os.Stat(b); err != nil {
			t.Fatalf("the Kubernetes control plane is not built: run `make kube` (or `make e2e`, which builds it): %v", err)
		}
	}
	return controllerManager, scheduler, kwok
}

// kubeconfigFor is a kubeconfig of the API server for a token user; it holds the token, so it is
// only ever written to the test's own private folder or kept in memory.
func (k *kube) kubeconfigFor(user, token string) []byte {
	k.t.Helper()
	ca, err := os.ReadFile(filepath.Join(k.dir, "ca.crt"))
	if err != nil {
		k.t.Fatal(err)
	}
	return []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: %s
  user:
    token: %s
contexts:
- name: e2e
  context:
    cluster: e2e
    user: %s
current-context: e2e
`, k.url, base64.StdEncoding.EncodeToString(ca), user, token, user))
}

// kubeconfig is the admin's kubeconfig: what a cloud serves as the cluster's.
func (k *kube) kubeconfig() []byte { return k.kubeconfigFor("admin", k.token) }

// newKubeCluster starts a whole control plane on loopback: etcd and the API server (newKube),
// the controller manager (Deployments, ReplicaSets, PodDisruptionBudgets, garbage collection),
// the scheduler, and kwok, whose simulated kubelets run the pods of the Nodes annotated
// kwok.x-k8s.io/node=fake (k.nodes registers them). Every process stops when the test ends.
func newKubeCluster(t *testing.T) *kube {
	t.Helper()
	controllerManager, scheduler, kwok := kubeClusterBinaries(t)
	start := time.Now()
	k := newKube(t)
	write := func(name string, data []byte) string {
		path := filepath.Join(k.dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cmConfig := write("controller-manager.kubeconfig", k.kubeconfigFor("system:kube-controller-manager", k.tokens["system:kube-controller-manager"]))
	schedConfig := write("scheduler.kubeconfig", k.kubeconfigFor("system:kube-scheduler", k.tokens["system:kube-scheduler"]))
	kwokConfig := write("kwok.kubeconfig", k.kubeconfigFor("kwok", k.tokens["kwok"]))
	startProcess(t, k.dir, "kube-controller-manager", controllerManager,
		"--kubeconfig", cmConfig,
		"--authentication-kubeconfig", cmConfig, "--authorization-kubeconfig", cmConfig,
		"--leader-elect=false", "--use-service-account-credentials",
		"--service-account-private-key-file", filepath.Join(k.dir, "sa.key"),
		"--root-ca-file", filepath.Join(k.dir, "ca.crt"),
		"--bind-address", "127.0.0.1", fmt.Sprintf("--secure-port=%d", lowPort(t)),
		"--cert-dir", filepath.Join(k.dir, "cm-certs"))
	startProcess(t, k.dir, "kube-scheduler", scheduler,
		"--kubeconfig", schedConfig,
		"--authentication-kubeconfig", schedConfig, "--authorization-kubeconfig", schedConfig,
		"--leader-elect=false",
		"--bind-address", "127.0.0.1", fmt.Sprintf("--secure-port=%d", lowPort(t)),
		"--cert-dir", filepath.Join(k.dir, "sched-certs"))
	startProcess(t, k.dir, "kwok", kwok,
		"--kubeconfig", kwokConfig,
		"--config", write("kwok.yaml", nil),
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
		// Without node leases nodes flap NotReady about every 80 s, and PDBs block every eviction.
		"--node-lease-duration-seconds=40",
		"--server-address", fmt.Sprintf("127.0.0.1:%d", lowPort(t)))
	// The controller manager is up when it has made the default namespace's service account.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		code, _ := k.try("GET", "/api/v1/namespaces/default/serviceaccounts/default", nil)
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the controller manager made no default service account in 2 minutes (last answer %d)", code)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("control plane up in %s", time.Since(start).Round(100*time.Millisecond))
	return k
}

// kubeNodes registers a cloud's nodes as Nodes of the control plane, for kwok to run: the
// fakes' SetNodes hook (fakecloud.Nodes).
type kubeNodes struct{ k *kube }

// nodes is the hook the loopback clouds register their nodes through.
func (k *kube) nodes() fakecloud.Nodes { return kubeNodes{k} }

func (n kubeNodes) AddNode(node fakecloud.Node) error {
	labels := map[string]any{
		"kubernetes.io/hostname": node.Name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", "type": "kwok",
	}
	for k, v := range node.Labels {
		labels[k] = v
	}
	obj := map[string]any{
		"apiVersion": "v1", "kind": "Node",
		"metadata": map[string]any{
			"name": node.Name, "labels": labels,
			"annotations": map[string]any{"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
		},
		"spec":   nodeSpec(node),
		"status": map[string]any{"capacity": nodeResources(node), "allocatable": nodeResources(node)},
	}
	code, body := n.k.try("POST", "/api/v1/nodes", obj)
	if code == http.StatusConflict {
		// Already there: its labels changed.
		code, body = n.k.patch("/api/v1/nodes/"+node.Name, map[string]any{"metadata": map[string]any{"labels": labels}})
	}
	if code < 200 || code > 299 {
		return fmt.Errorf("register node %s: %d %s", node.Name, code, body)
	}
	return nil
}

// nodeSpec is the Node's providerID and the taints its kubelet registers it with (its pool's).
func nodeSpec(node fakecloud.Node) map[string]any {
	spec := map[string]any{}
	if node.ProviderID != "" {
		spec["providerID"] = node.ProviderID
	}
	var taints []any
	for _, t := range node.Taints {
		taints = append(taints, map[string]any{"key": t.Key, "value": t.Value, "effect": t.Effect})
	}
	if taints != nil {
		spec["taints"] = taints
	}
	return spec
}

// nodeResources is the machine's capacity, all of it allocatable (kwok runs no system daemons);
// a cloud that did not say gets a roomy 8 CPU and 32 GiB.
func nodeResources(node fakecloud.Node) map[string]any {
	r := map[string]any{"cpu": "8", "memory": "32Gi", "pods": "110"}
	if node.CPU > 0 && node.MemoryMiB > 0 {
		r["cpu"], r["memory"] = fmt.Sprint(node.CPU), fmt.Sprintf("%dMi", node.MemoryMiB)
	}
	if node.GPUs > 0 {
		r["nvidia.com/gpu"] = fmt.Sprint(node.GPUs)
	}
	return r
}

func (n kubeNodes) RemoveNode(name string) error {
	code, body := n.k.try("DELETE", "/api/v1/nodes/"+name, nil)
	if code != http.StatusNotFound && (code < 200 || code > 299) {
		return fmt.Errorf("remove node %s: %d %s", name, code, body)
	}
	return nil
}

// patch sends a JSON merge patch as the admin.
func (k *kube) patch(path string, body any) (int, []byte) {
	return k.tryWith("PATCH", path, body, "application/merge-patch+json")
}

// memory is the resident memory of this control plane's processes (those whose command line
// names its folder), in MB, for the logs.
func (k *kube) memory() string {
	var parts []string
	total := 0
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err != nil {
			continue
		}
		if cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); !strings.Contains(string(cmdline), k.dir) {
			continue
		}
		name := strings.TrimSpace(string(comm))
		switch name {
		case "etcd", "kube-apiserver", "kube-controller", "kube-scheduler", "kwok":
		default:
			continue
		}
		status, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		for _, line := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(line, "VmRSS:") {
				var kb int
				fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "VmRSS:")), "%d", &kb)
				parts = append(parts, fmt.Sprintf("%s %d MB", name, kb/1024))
				total += kb / 1024
			}
		}
	}
	return fmt.Sprintf("%d MB (%s)", total, strings.Join(parts, ", "))
}
