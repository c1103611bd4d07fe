//go:build e2e

package autostack

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// An opened stack's state and last update are read from a file backend's files where they can
// be (readState, Backend.LastUpdate), not through `pulumi stack export` and `stack history`: what
// they read must be what the real CLI (`make engine`, run by `make e2e`) says, for a stack the
// CLI deployed, refreshed and left with a plain, a gzipped and a zstd-compressed state.
func TestAStacksStateAndLastUpdateReadHereAreWhatTheRealCLISays(t *testing.T) {
	engine, err := filepath.Abs(filepath.Join("..", "..", "..", ".engine", "bin"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(engine, "pulumi")); err != nil {
		t.Fatalf("the real Pulumi CLI is not built (make engine): %v", err)
	}
	for _, form := range []struct{ name, env string }{
		{"a plain state", ""}, {"a gzipped state", "PULUMI_DIY_BACKEND_GZIP=true"}, {"a zstd state", "PULUMI_DIY_BACKEND_ZSTD=true"},
	} {
		t.Run(form.name, func(t *testing.T) {
			dir := t.TempDir()
			state, program := filepath.Join(dir, "state"), filepath.Join(dir, "program")
			for _, d := range []string{state, program, filepath.Join(dir, "home")} {
				if err := os.MkdirAll(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			// A program of one output and one secret: the state holds both, the secret encrypted.
			yaml := "name: p\nruntime: yaml\noutputs:\n  generation: abc\n  token:\n    fn::secret: s3cr3t\n"
			if err := os.WriteFile(filepath.Join(program, "Pulumi.yaml"), []byte(yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			env := append(os.Environ(), "PATH="+engine+":"+os.Getenv("PATH"), "PULUMI_HOME="+filepath.Join(dir, "home"),
				"PULUMI_BACKEND_URL=file://"+state, "PULUMI_CONFIG_PASSPHRASE=e2e", "PULUMI_SKIP_UPDATE_CHECK=1")
			if form.env != "" {
				env = append(env, form.env)
			}
			pulumiCLI := func(args ...string) []byte {
				t.Helper()
				cmd := exec.Command(filepath.Join(engine, "pulumi"), append(args, "--non-interactive")...)
				cmd.Dir, cmd.Env = program, env
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Run(); err != nil {
					t.Fatalf("pulumi %v: %v\n%s%s", args, err, stdout.String(), stderr.String())
				}
				return stdout.Bytes()
			}
			pulumiCLI("stack", "init", "s")
			pulumiCLI("up", "--yes", "--stack", "s")
			pulumiCLI("refresh", "--yes", "--stack", "s")

			b := &Backend{url: "file://" + state, cli: &cli{path: filepath.Join(engine, "pulumi"), version: semver.MustParse("3.259.0")}}
			s := &stackOf{backend: b, project: "p", stack: "s", program: func(*pulumi.Context) error { return nil }}
			read, ok := b.readState(context.Background(), "p", "s", &stateRead{})
			here := read.Raw
			if !ok {
				t.Fatal("the state the CLI wrote is not read here")
			}
			var exported apitype.UntypedDeployment
			if err := json.Unmarshal(pulumiCLI("stack", "export", "--stack", "s"), &exported); err != nil {
				t.Fatal(err)
			}
			var a, c any
			_ = json.Unmarshal(here.Deployment, &a)
			_ = json.Unmarshal(exported.Deployment, &c)
			if here.Version != exported.Version || a == nil || !reflect.DeepEqual(a, c) {
				t.Errorf("the state read here (version %d):\n%s\nis not what pulumi stack export gives (version %d):\n%s",
					here.Version, here.Deployment, exported.Version, exported.Deployment)
			}
			last, err := s.LastUpdate(context.Background())
			var history []struct{ Kind, Result string }
			if jerr := json.Unmarshal(pulumiCLI("stack", "history", "--stack", "s", "--json"), &history); jerr != nil || len(history) != 2 {
				t.Fatalf("pulumi stack history: %v %+v", jerr, history)
			}
			// Newest first: the refresh, then the up, which is the last update.
			if err != nil || last == nil || history[1].Kind != "update" || last.Operation != history[1].Kind || last.Result != history[1].Result {
				t.Errorf("the last update read here is %+v (%v); pulumi stack history says %+v", last, err, history)
			}
		})
	}
}
