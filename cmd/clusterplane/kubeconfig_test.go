package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

// stackKubeconfig is the kubeconfig output deployedCluster gives its stack, its token a marker.
const stackKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: do-fra1-platform
  cluster: {server: "https://127.0.0.1:9"}
users:
- name: do-fra1-platform-admin
  user: {token: kubeconfig-test-token-3f1c}
contexts:
- name: do-fra1-platform
  context: {cluster: do-fra1-platform, user: do-fra1-platform-admin}
current-context: do-fra1-platform
`

// deployedCluster ups the fleet's cluster on a fake backend with a kubeconfig output, and returns
// the backend, the manifest and the kubeconfig `clusterplane kubeconfig` prints for it. TMPDIR
// is a folder of the test's, so that what the command leaves there can be seen.
func deployedCluster(t *testing.T) (b *deploytest.Backend, file, kubeconfig, tmp string) {
	t.Helper()
	b, file, tmp = deploytest.New(), filepath.Join(fleet(t), "cluster.yaml"), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if r := deployRun(t, b, nil, false, "up", file, "--yes"); r.code != exitcode.OK {
		t.Fatalf("up: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	b.SetOutput("digitaloceankubernetescluster/platform-prod", "kubeconfig", stackKubeconfig, true)
	r := deployRun(t, b, nil, false, "kubeconfig", file)
	if r.code != exitcode.OK || r.stdout != stackKubeconfig {
		t.Fatalf("kubeconfig: exit %d, want 0 and the stack's kubeconfig\n%s%s", r.code, r.stdout, r.stderr)
	}
	return b, file, r.stdout, tmp
}

// leftIn lists what is left in dir.
func leftIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// The command's script writes, into the folder its first argument names, what it saw: `ls -ld` of
// the kubeconfig's file and of its folder, the file's path and its content.
const sawScript = `ls -ld "$KUBECONFIG" >"$0/file"; ls -ld "$(dirname "$KUBECONFIG")" >"$0/folder"; echo "$KUBECONFIG" >"$0/path"; cat "$KUBECONFIG" >"$0/content"; `

// Promise: kubeconfig-command-file-private-and-removed
func TestKubeconfigRunsTheCommandWithTheKubeconfigInAPrivateFileAndRemovesItHoweverTheCommandEnds(t *testing.T) {
	for _, c := range []struct {
		name string
		// command is what runs after --; it ran when the script's files are there.
		command []string
		code    int
		ran     bool
		says    string
		// empty leaves the stack's kubeconfig output empty, as the mocks make it.
		empty bool
	}{
		{"a command that succeeds exits 0", []string{"sh", "-c", sawScript + "exit 0"}, exitcode.OK, true, "", false},
		{"a command that fails gives its exit code", []string{"sh", "-c", sawScript + "exit 3"}, 3, true, "", false},
		{"a command a signal ends exits 128 and the signal, as a shell says", []string{"sh", "-c", sawScript + "kill -TERM $$"}, 143, true, "", false},
		{"a command that is not found exits 1 saying so", []string{"no-such-command-of-clusterplane"}, exitcode.Invalid, false,
			"run no-such-command-of-clusterplane", false},
		{"a stack whose kubeconfig output is empty runs nothing and exits 1", []string{"sh", "-c", sawScript}, exitcode.Invalid, false,
			"the stack's kubeconfig output is empty", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, file, kubeconfig, tmp := deployedCluster(t)
			if c.empty {
				b.SetOutput("digitaloceankubernetescluster/platform-prod", "kubeconfig", "", true)
			}
			saw := t.TempDir()
			args := append(append([]string{"kubeconfig", file, "--"}, c.command...), saw)
			r := deployRun(t, b, nil, false, args...)
			if r.code != c.code || !strings.Contains(r.stderr, c.says) {
				t.Errorf("exit %d, want %d saying %q\nstdout:\n%s\nstderr:\n%s", r.code, c.code, c.says, r.stdout, r.stderr)
			}
			if strings.Contains(r.stdout+r.stderr, "kubeconfig-test-token") {
				t.Errorf("the kubeconfig was printed:\n%s%s", r.stdout, r.stderr)
			}
			if left := leftIn(t, tmp); len(left) != 0 {
				t.Errorf("left in the temporary folder after the command: %v", left)
			}
			if _, err := os.Stat(filepath.Join(saw, "path")); !c.ran {
				if err == nil {
					t.Error("the command ran")
				}
				return
			}
			file, folder := readFile(t, filepath.Join(saw, "file")), readFile(t, filepath.Join(saw, "folder"))
			if !strings.HasPrefix(file, "-rw------- ") || !strings.HasPrefix(folder, "drwx------ ") {
				t.Errorf("the kubeconfig's file and folder, as the command saw them:\n%s%swant -rw------- in drwx------", file, folder)
			}
			if got := readFile(t, filepath.Join(saw, "content")); got != kubeconfig {
				t.Errorf("the command read %q, want the stack's kubeconfig %q", got, kubeconfig)
			}
			path := strings.TrimSpace(readFile(t, filepath.Join(saw, "path")))
			if !strings.HasPrefix(path, tmp+string(filepath.Separator)) {
				t.Errorf("KUBECONFIG=%s, want a file in the temporary folder %s", path, tmp)
			}
		})
	}
}

// A SIGTERM sent to clusterplane alone (a CI job's cancel) reaches the command, whose exit code
// clusterplane gives, and the kubeconfig's file is removed all the same.
// Promise: kubeconfig-command-file-private-and-removed
func TestASIGTERMToKubeconfigReachesItsCommandAndTheFileIsStillRemoved(t *testing.T) {
	b, file, _, tmp := deployedCluster(t)
	started := filepath.Join(t.TempDir(), "started")
	done := make(chan result, 1)
	go func() {
		done <- deployRun(t, b, nil, false, "kubeconfig", file, "--", "sh", "-c",
			`trap 'exit 7' TERM; echo $$ >"$0.tmp"; mv "$0.tmp" "$0"; while :; do sleep 0.1; done`, started)
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if pid, err := os.ReadFile(started); err == nil {
			// Should the SIGTERM not reach it, the command is ended with the test.
			t.Cleanup(func() { _ = exec.Command("kill", "-KILL", strings.TrimSpace(string(pid))).Run() })
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.code != 7 {
			t.Errorf("exit %d, want 7, the command's own exit on SIGTERM\n%s%s", r.code, r.stdout, r.stderr)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the command ran on after clusterplane's SIGTERM")
	}
	if left := leftIn(t, tmp); len(left) != 0 {
		t.Errorf("left in the temporary folder after the SIGTERM: %v", left)
	}
}

func TestKubeconfigOutputFileIsWrittenOwnerOnlyAndNothingSecretIsPrinted(t *testing.T) {
	for _, c := range []struct {
		name string
		// before is a file already at the path, mode 0644, or "" for none.
		before string
	}{
		{"a new file is made 0600", ""},
		{"a file readable by all is replaced by one of 0600", "old: config\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, file, kubeconfig, _ := deployedCluster(t)
			out := filepath.Join(t.TempDir(), "prod.kubeconfig")
			if c.before != "" {
				if err := os.WriteFile(out, []byte(c.before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := deployRun(t, b, nil, false, "kubeconfig", file, "--output-file", out)
			if r.code != exitcode.OK || r.stdout != "" || !strings.Contains(r.stderr, "wrote the kubeconfig to "+out) {
				t.Errorf("exit %d, want 0, nothing on stdout and the file named on stderr\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if strings.Contains(r.stderr, "kubeconfig-test-token") {
				t.Errorf("the kubeconfig was printed:\n%s", r.stderr)
			}
			info, err := os.Stat(out)
			if err != nil {
				t.Fatal(err)
			}
			if info.Mode().Perm() != 0o600 {
				t.Errorf("the file is %v, want 0600", info.Mode().Perm())
			}
			if got := readFile(t, out); got != kubeconfig {
				t.Errorf("the file holds %q, want the stack's kubeconfig %q", got, kubeconfig)
			}
		})
	}
}

func TestKubeconfigRefusesACommandLineItCannotCarryOutAsAUsageError(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		says string
	}{
		{"-- with no command after it", []string{"a.yaml", "--"}, "nothing after --"},
		{"--output-file with a command", []string{"a.yaml", "--output-file", "x", "--", "kubectl", "get", "nodes"},
			"--output-file and a command after -- do not go together"},
		{"two files before --", []string{"a.yaml", "b.yaml", "--", "kubectl"}, "takes 1 argument(s) before --, not 2"},
		{"a command without --", []string{"a.yaml", "kubectl", "get", "nodes"}, "takes 1 argument(s) before --, not 4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := deployRun(t, deploytest.New(), nil, false, append([]string{"kubeconfig"}, c.args...)...)
			if r.code != exitcode.Usage || !strings.Contains(r.stderr, c.says) {
				t.Errorf("exit %d, want %d saying %q\n%s%s", r.code, exitcode.Usage, c.says, r.stdout, r.stderr)
			}
		})
	}
}
