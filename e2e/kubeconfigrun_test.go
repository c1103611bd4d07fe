//go:build e2e

package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// `clusterplane kubeconfig FILE -- kubectl ...`, as docs/deploying.md gives it, on the real engine
// and provider: the loopback DigitalOcean serves the credentials of a real kube-apiserver (.engine/kube)
// for the cluster up creates, the provider renders the stack's kubeconfig output from them, and
// kubectl (built from tools/kube/cli) reaches that API server through the file clusterplane hands it.
// Promise: kubeconfig-command-file-private-and-removed
func TestKubeconfigRunsKubectlAgainstTheClustersRealAPIServer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	k := newKube(t)
	kubectl := filepath.Join(karpenterCLI(t), "kubectl")
	// The provider reads a new cluster's credentials once, after its create, into kube_config:
	// every cluster the cloud holds serves the API server's from the moment it exists.
	e.do.OnChange(func() {
		for _, c := range e.do.Clusters() {
			e.do.SetKubeconfig(c.ID, k.kubeconfig())
		}
	})
	manifest := e.write("minimal.yaml", example(t, "digitaloceankubernetescluster/minimal.yaml"))
	if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	tmp := ""
	for _, v := range e.vars {
		if dir, ok := strings.CutPrefix(v, "TMPDIR="); ok {
			tmp = dir
		}
	}
	leftBehind := func() []string {
		left, _ := filepath.Glob(filepath.Join(tmp, "clusterplane-kubeconfig-*"))
		return left
	}

	for _, c := range []struct {
		name    string
		command []string
		code    int
		says    string
	}{
		{"kubectl asks the API server whether it is ready", []string{kubectl, "get", "--raw", "/readyz"}, 0, "ok"},
		{"kubectl lists the cluster's namespaces", []string{kubectl, "get", "namespaces", "-o", "name"}, 0, "namespace/kube-system"},
		// kubectl succeeds, then the script exits 7: clusterplane's code is the command's.
		{"the command's exit code is clusterplane's", []string{"sh", "-c", `"$0" get --raw /readyz && exit 7`, kubectl}, 7, "ok"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, code := e.clusterplane(append([]string{"kubeconfig", manifest, "--"}, c.command...)...)
			if code != c.code || !strings.Contains(r.stdout, c.says) {
				t.Errorf("exit %d, want %d printing %q: %s", code, c.code, c.says, r)
			}
			if strings.Contains(r.stdout+r.stderr, k.token) {
				t.Error("the kubeconfig's token was printed")
			}
			if left := leftBehind(); len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}

	// --output-file: a file kubectl reads as it is, the owner's alone, and nothing of it printed.
	out := filepath.Join(e.dir, "dev.kubeconfig")
	r, code := e.clusterplane("kubeconfig", manifest, "--output-file", out)
	if code != 0 || r.stdout != "" || strings.Contains(r.stderr, k.token) {
		t.Fatalf("kubeconfig --output-file = %d, want 0 and nothing printed of it: %s", code, r)
	}
	if info, err := os.Stat(out); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the kubeconfig file: %v, %v; want 0600", info, err)
	}
	cmd := exec.Command(kubectl, "get", "--raw", "/readyz")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+out)
	if got, err := cmd.CombinedOutput(); err != nil || strings.TrimSpace(string(got)) != "ok" {
		t.Errorf("kubectl with the written kubeconfig: %v: %s", err, got)
	}
}
