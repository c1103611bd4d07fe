package sandbox

import (
	"context"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakeclouds"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

// Promise: sandbox-refuses-real-credentials
// Promise: sandbox-never-prints-credentials
func TestARealCredentialInTheEnvironmentIsRefusedByNameNeverByValue(t *testing.T) {
	const real = "dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab"
	tests := []struct {
		name    string
		environ []string
		refused string // the variable the error names; "" for none
	}{
		{name: "nothing set starts", environ: []string{"HOME=/home/u"}},
		{name: "the sandbox's own tokens start",
			environ: []string{"DIGITALOCEAN_TOKEN=" + Token("digitalocean"), "CIVO_TOKEN=" + Token("civo")}},
		{name: "empty variables start", environ: []string{"DIGITALOCEAN_TOKEN=", "CIVO_TOKEN="}},
		{name: "a DigitalOcean token", environ: []string{"DIGITALOCEAN_TOKEN=" + real}, refused: "DIGITALOCEAN_TOKEN"},
		{name: "a DigitalOcean access token", environ: []string{"DIGITALOCEAN_ACCESS_TOKEN=" + real}, refused: "DIGITALOCEAN_ACCESS_TOKEN"},
		{name: "a Spaces key", environ: []string{"SPACES_SECRET_ACCESS_KEY=" + real}, refused: "SPACES_SECRET_ACCESS_KEY"},
		{name: "a Civo token", environ: []string{"CIVO_TOKEN=" + real}, refused: "CIVO_TOKEN"},
		{name: "a Civo credential file", environ: []string{"CIVO_CREDENTIAL_FILE=/home/u/.civo.json"}, refused: "CIVO_CREDENTIAL_FILE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckEnvironment(tt.environ)
			if tt.refused == "" {
				if err != nil {
					t.Fatalf("CheckEnvironment = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "unset "+tt.refused) {
				t.Fatalf("CheckEnvironment = %v, want a refusal saying to unset %s", err, tt.refused)
			}
			if strings.Contains(err.Error(), real) {
				t.Errorf("the refusal shows the token: %v", err)
			}
		})
	}
}

func TestResetRemovesOnlyASandboxsFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sb")
	if err := prepare(dir, Engine{}); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dir, passphraseFile))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the passphrase file: %v, %v; want mode 0600", info, err)
	}
	if removed, err := Reset(dir); err != nil || !removed {
		t.Fatalf("Reset = %t, %v; want the sandbox removed", removed, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("after Reset %s still exists: %v", dir, err)
	}
	if removed, err := Reset(dir); err != nil || removed {
		t.Errorf("Reset of a sandbox no longer there = %t, %v; want nothing removed and no error", removed, err)
	}

	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Reset(other); err == nil {
		t.Errorf("Reset of a folder that is not a sandbox's succeeded")
	}
	if err := prepare(other, Engine{}); err == nil {
		t.Errorf("a folder that is not a sandbox's was filled")
	}
	if _, err := os.Stat(filepath.Join(other, "notes.txt")); err != nil {
		t.Errorf("a folder that is not a sandbox's lost its file: %v", err)
	}
}

func TestTheCloudsComeBackWithWhatTheyHeldAtTheSameURLs(t *testing.T) {
	dir := t.TempDir()
	first, err := StartClouds(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := doOf(first).Cluster(fakeclouds.ExampleDOCluster); !ok {
		t.Fatalf("a new sandbox lacks the cluster the examples join, %s", fakeclouds.ExampleDOCluster)
	}
	civoOf(first).Networking().SeedNetwork("11111111-2222-4333-8444-555555555555", "added-later", "lon1")
	doURL, civoURL := doOf(first).URL(), civoOf(first).URL()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	again, err := StartClouds(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if doOf(again).URL() != doURL || civoOf(again).URL() != civoURL {
		t.Errorf("restarted at %s and %s, want the same URLs %s and %s", doOf(again).URL(), civoOf(again).URL(), doURL, civoURL)
	}
	found := false
	for _, n := range civoOf(again).Networking().Networks() {
		found = found || n.Label == "added-later"
	}
	if !found {
		t.Errorf("the restarted Civo cloud lost the network added before the restart")
	}
}

// Promise: sandbox-kubeconfig-answers-nothing
func TestTheSandboxsClustersAnswerLoopbackEndpointsSoNoClientDialsOut(t *testing.T) {
	clouds, err := StartClouds(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer clouds.Close()
	do, ok := doOf(clouds).Cluster(fakeclouds.ExampleDOCluster)
	if !ok {
		t.Fatalf("no cluster %s", fakeclouds.ExampleDOCluster)
	}
	civo, ok := civoOf(clouds).Cluster(fakeclouds.ExampleCivoCluster)
	if !ok {
		t.Fatalf("no cluster %s", fakeclouds.ExampleCivoCluster)
	}
	for name, endpoint := range map[string]string{"DigitalOcean": do.Endpoint, "Civo": civo.APIEndPoint, "Civo master": "https://" + civo.MasterIP} {
		u, err := url.Parse(endpoint)
		if err != nil || u.Hostname() != "127.0.0.1" {
			t.Errorf("%s endpoint %q, want one on 127.0.0.1: a name or a public address would be looked up or dialled off the machine", name, endpoint)
		}
	}
}

func TestAClusterplaneCommandWrittenWithoutItsNameGetsTheWayToRunIt(t *testing.T) {
	s := &Session{Dir: t.TempDir(), Engine: Engine{Bin: t.TempDir()}}
	_, err := s.Run(context.Background(), []string{"status", "cluster.yaml"}, nil, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "no command status on its PATH") ||
		!strings.Contains(err.Error(), "`sandbox -- clusterplane status cluster.yaml`") {
		t.Errorf("Run(status cluster.yaml) = %v, want the way to run clusterplane status", err)
	}
}

// A command run from a subfolder of a project uses the project's sandbox, as git finds its
// repository; where none is found, the sandbox is a new one in the current directory.
func TestTheSandboxIsFoundInTheFolderAboveAsGitFindsItsRepository(t *testing.T) {
	t.Setenv(DirEnv, "")
	project := t.TempDir()
	deeper := filepath.Join(project, "teams", "payments")
	if err := os.MkdirAll(deeper, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Chdir(deeper)
	for d := filepath.Dir(project); d != filepath.Dir(d); d = filepath.Dir(d) {
		if Exists(filepath.Join(d, DefaultDir)) {
			t.Skipf("a sandbox in %s, above the test's folder, would be found first", d)
		}
	}
	tests := []struct {
		name    string
		prepare string // where a sandbox is made first, "" for nowhere
		want    string
	}{
		{"none anywhere: a new one here", "", filepath.Join(deeper, DefaultDir)},
		{"one in the project: that one", filepath.Join(project, DefaultDir), filepath.Join(project, DefaultDir)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.prepare != "" {
				if err := prepare(tt.prepare, Engine{}); err != nil {
					t.Fatal(err)
				}
			}
			got, err := Dir("")
			if err != nil || got != tt.want {
				t.Errorf("Dir = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	// A folder given, or the sandbox's own environment, wins over the one above.
	if got, _ := Dir("elsewhere"); got != filepath.Join(deeper, "elsewhere") {
		t.Errorf("Dir(elsewhere) = %q", got)
	}
	t.Setenv(DirEnv, "/inside/a/sandbox")
	if got, _ := Dir(""); got != "/inside/a/sandbox" {
		t.Errorf("Dir inside a sandbox = %q", got)
	}
}

// doOf and civoOf are the sandbox's loopback clouds as the tests reach into them.
func doOf(c *Clouds) *fakedo.DO { return c.Cloud("digitalocean").(*fakedo.DO) }

func civoOf(c *Clouds) *fakecivo.Civo { return c.Cloud("civo").(*fakecivo.Civo) }

// Promise: sandbox-exit-code-is-the-commands
// The sandbox's exit code is the command's; a command a signal ended (a SIGTERM passed on) exits
// as a shell says it, 128 and the signal, never 255, which the exit codes do not name.
func TestTheSandboxExitsWithItsCommandsCodeOrOneHundredTwentyEightAndTheSignal(t *testing.T) {
	s := &Session{Dir: t.TempDir(), Engine: Engine{Bin: t.TempDir()}}
	for _, c := range []struct {
		name, script string
		want         int
	}{
		{"an exit code", "exit 3", 3},
		{"ended by SIGTERM", "kill -TERM $$", 143},
		{"ended by SIGINT", "kill -INT $$", 130},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, err := s.Run(context.Background(), []string{"sh", "-c", c.script}, nil, io.Discard, io.Discard)
			if err != nil || code != c.want {
				t.Errorf("Run(sh -c %q) = %d, %v; want %d", c.script, code, err, c.want)
			}
		})
	}
}

// Promise: sandbox-passes-sigterm-on
// A SIGTERM sent to the sandbox alone (a service manager, a CI job's cancel) reaches the command,
// which ends as it chooses to on it, rather than running on with the sandbox's clouds gone.
func TestASIGTERMToTheSandboxIsPassedOnToTheCommand(t *testing.T) {
	s := &Session{Dir: t.TempDir(), Engine: Engine{Bin: t.TempDir()}}
	started := filepath.Join(t.TempDir(), "started")
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	// The context ends the command should the SIGTERM not reach it.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go func() {
		code, err := s.Run(ctx, []string{"sh", "-c", `trap 'exit 7' TERM; : >"$0"; while :; do :; done`, started},
			nil, io.Discard, io.Discard)
		done <- result{code, err}
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
	}
	// Run listens for SIGTERM from before the command starts, so the test process is not ended.
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.err != nil || r.code != 7 {
			t.Errorf("Run = %d, %v; want 7, the command's own exit on SIGTERM", r.code, r.err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the command ran on after the sandbox's SIGTERM")
	}
}
