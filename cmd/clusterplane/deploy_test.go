package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	validator "github.com/santhosh-tekuri/jsonschema/v6"
)

// The deploy commands over a fake backend (pkg/deploy/deploytest): the modules run under Pulumi's
// mocks, so these tests check clusterplane's own behaviour (flags, outcomes, exit codes, what it
// prints); e2e/ runs the same commands on the real engine and providers.

// deployRun runs clusterplane in this process against backend b; stdin is what it reads, and
// terminal whether it takes stdin for a terminal someone answers at.
func deployRun(t *testing.T, b *deploytest.Backend, stdin io.Reader, terminal bool, args ...string) result {
	t.Helper()
	for _, env := range []string{civo.TokenEnv, digitalocean.TokenEnv, civo.APIURLEnv,
		digitalocean.APIURLEnv, stackinput.FileEnv} {
		t.Setenv(env, "")
	}
	var stdout, stderr bytes.Buffer
	a := newApp(registry.Kinds(), stdin, &stdout, &stderr)
	a.f.deploy.backend = b
	a.f.deploy.interactive = &terminal
	code := a.run(args)
	return result{code, stdout.String(), stderr.String()}
}

// fleet writes an unprotected DigitalOcean cluster platform-prod and a pool referencing it into a
// folder, and returns the folder.
func fleet(t *testing.T) string {
	t.Helper()
	cluster := strings.Replace(readExample(t, "digitaloceankubernetescluster/minimal.yaml"), "\nspec:\n",
		"\nspec:\n  deletionProtection: false\n", 1)
	cluster = strings.Replace(strings.Replace(cluster, "name: dev-fra1", "name: platform", 1), "\nspec:", "\n  env: prod\nspec:", 1)
	return writeFiles(t, map[string]string{
		"cluster.yaml": cluster,
		"pool.yaml": `apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesNodePool
metadata:
  name: workers
spec:
  nodePoolName: workers
  cluster:
    valueFrom: {kind: DigitalOceanKubernetesCluster, name: platform, env: prod}
  size: s-2vcpu-4gb
  nodeCount: 2
`,
	})
}

func TestEveryDeployCommandTakesStackAndFindsTheStackUpMadeWithIt(t *testing.T) {
	b := deploytest.New()
	file := filepath.Join(fleet(t), "cluster.yaml")
	b.Live("cluster-7", map[string]any{"name": "dev-fra1", "region": "fra1", "version": "1.31.1-do.5",
		"nodePool": map[string]any{"name": "default", "size": "s-2vcpu-4gb", "nodeCount": float64(2)}})
	steps := []struct {
		args []string
		code int
		says string
	}{
		{[]string{"preview", file, "--stack", "team-a"}, exitcode.OK, "Stacks: 1 would change."},
		{[]string{"up", file, "--stack", "team-a", "--yes"}, exitcode.OK, "Stacks: 1 changed."},
		{[]string{"status", file, "--stack", "team-a"}, exitcode.OK, "Ready=True"},
		{[]string{"refresh", file, "--stack", "team-a"}, exitcode.OK, "Stacks: 1 unchanged."},
		{[]string{"drift", file, "--stack", "team-a"}, exitcode.OK, "digitaloceankubernetescluster/team-a  0s    unchanged: no drift"},
		{[]string{"kubeconfig", file, "--stack", "team-a"}, exitcode.OK, ""},
		{[]string{"adopt", file, "--stack", "team-b", "--id", "cluster-7"}, exitcode.OK, "into digitaloceankubernetescluster/team-b"},
		// Without --stack the manifest's own stack was never deployed.
		{[]string{"status", file}, exitcode.NotReady, "NotDeployed"},
		{[]string{"destroy", file, "--stack", "team-a", "--yes", "--remove"}, exitcode.OK, "Stacks: 1 destroyed."},
	}
	for _, s := range steps {
		r := deployRun(t, b, strings.NewReader(""), false, s.args...)
		if r.code != s.code || !strings.Contains(r.stdout, s.says) {
			t.Errorf("clusterplane %s = exit %d, want %d saying %q\nstdout:\n%s\nstderr:\n%s", strings.Join(s.args, " "), r.code, s.code, s.says, r.stdout, r.stderr)
		}
	}
	if b.Has("digitaloceankubernetescluster/team-a") {
		t.Error("destroy --stack team-a --remove left the stack")
	}
	for _, cmd := range []string{"preview", "up", "refresh", "drift", "status", "destroy", "kubeconfig", "adopt"} {
		if help := run(t, "", cmd, "--help").stdout; !strings.Contains(help, "--stack") || !strings.Contains(help, "-o, --output") {
			t.Errorf("%s --help has no --stack or -o", cmd)
		}
	}
}

func TestWhatTheFirstWeekHit(t *testing.T) {
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	tests := []struct {
		name string
		// setup deploys what the step needs and returns the command line; b is the backend.
		setup func(t *testing.T, b *deploytest.Backend, dir string) []string
		stdin io.Reader
		// terminal: stdin is a terminal someone answers at.
		terminal bool
		code     int
		// says and saysNot are what stdout and stderr together must and must not hold.
		says, saysNot []string
		// after checks the backend afterwards.
		after func(t *testing.T, b *deploytest.Backend, dir string)
	}{
		{
			name: "an up without --yes reading /dev/null deploys nothing: no terminal, no consent",
			setup: func(t *testing.T, b *deploytest.Backend, dir string) []string {
				return []string{"up", filepath.Join(dir, "cluster.yaml")}
			},
			stdin: devNull, code: exitcode.Blocked, says: []string{"Stacks: 1 blocked.", "--yes"},
			after: func(t *testing.T, b *deploytest.Backend, dir string) {
				if b.Has("digitaloceankubernetescluster/platform-prod") {
					t.Error("the stack was deployed")
				}
			},
		},
		{
			name: "up --yes of a protected cluster's replacement is refused with exit 3 and no URN",
			setup: func(t *testing.T, b *deploytest.Backend, dir string) []string {
				deployed(t, b, edit(t, dir, "cluster.yaml", "deletionProtection: false", "deletionProtection: true"))
				b.Replaces("region")
				return []string{"up", edit(t, dir, "cluster.yaml", "region: fra1", "region: ams3"), "--yes"}
			},
			code: exitcode.Blocked, says: []string{"refused", "Stacks: 1 blocked."}, saysNot: []string{"urn:pulumi"},
		},
		{
			name: "the table names the cause of a failure, not the engine's preamble",
			setup: func(t *testing.T, b *deploytest.Backend, dir string) []string {
				b.Fail("digitaloceankubernetescluster/platform-prod", "update",
					&stackstate.EngineError{Command: "update", Cause: "digitalocean:index/kubernetesCluster:KubernetesCluster platform: 401 Unable to authenticate you"})
				return []string{"up", filepath.Join(dir, "cluster.yaml"), "--yes"}
			},
			code: exitcode.Invalid, says: []string{"update failed: digitalocean:index/kubernetesCluster:KubernetesCluster platform: 401 Unable to authenticate you", "Stacks: 1 failed."},
			saysNot: []string{"an unhandled error occurred"},
		},
		{
			name: "a refused destroy is counted blocked, and status still reads the cluster Ready",
			setup: func(t *testing.T, b *deploytest.Backend, dir string) []string {
				file := edit(t, dir, "cluster.yaml", "deletionProtection: false", "deletionProtection: true")
				deployed(t, b, file)
				return []string{"destroy", file, "--yes"}
			},
			code: exitcode.Blocked, says: []string{"Stacks: 1 blocked.", "protected"},
			after: func(t *testing.T, b *deploytest.Backend, dir string) {
				r := deployRun(t, b, strings.NewReader(""), false, "status", filepath.Join(dir, "cluster.yaml"))
				if !strings.Contains(r.stdout, "Ready=True") {
					t.Errorf("status after a refused destroy:\n%s", r.stdout)
				}
			},
		},
		{
			name: "a replacement not confirmed at the terminal is counted blocked",
			setup: func(t *testing.T, b *deploytest.Backend, dir string) []string {
				deployed(t, b, filepath.Join(dir, "cluster.yaml"))
				b.Replaces("region")
				return []string{"up", edit(t, dir, "cluster.yaml", "region: fra1", "region: ams3"), "--allow-replace"}
			},
			stdin: strings.NewReader("n\n"), terminal: true, code: exitcode.Blocked,
			says: []string{"REPLACES digitalocean:index/kubernetesCluster:KubernetesCluster platform", "Deploy?", "Stacks: 1 blocked.", "not confirmed"},
		},
		{
			name: "a replacement with yes but not named by --allow-replace is refused naming both ways out",
			setup: func(t *testing.T, b *deploytest.Backend, dir string) []string {
				deployed(t, b, filepath.Join(dir, "cluster.yaml"))
				b.Replaces("region")
				return []string{"up", edit(t, dir, "cluster.yaml", "region: fra1", "region: ams3"), "--yes"}
			},
			code: exitcode.Blocked, says: []string{"Stacks: 1 blocked.", "rollout", "--allow-replace=DigitalOceanKubernetesCluster/platform"},
			saysNot: []string{"Deploy?"},
		},
		{
			name: "a preview of a replacement names the ways out as up's refusal does",
			setup: func(t *testing.T, b *deploytest.Backend, dir string) []string {
				deployed(t, b, filepath.Join(dir, "cluster.yaml"))
				b.Replaces("region")
				return []string{"preview", edit(t, dir, "cluster.yaml", "region: fra1", "region: ams3")}
			},
			code: exitcode.Blocked, says: []string{"rollout", "--allow-replace=DigitalOceanKubernetesCluster/platform"},
		},
		{
			name: "an --allow-replace of a kind clusterplane does not deploy is a usage error",
			setup: func(t *testing.T, b *deploytest.Backend, dir string) []string {
				return []string{"up", filepath.Join(dir, "cluster.yaml"), "--yes", "--allow-replace=Droplet/web"}
			},
			code: exitcode.Usage, says: []string{`"Droplet" is not a kind clusterplane deploys`, "DigitalOceanKubernetesCluster (do-cluster)"},
		},
		{
			name: "an --allow-replace may name the kind by the short name status shows",
			setup: func(t *testing.T, b *deploytest.Backend, dir string) []string {
				deployed(t, b, filepath.Join(dir, "cluster.yaml"))
				b.Replaces("region")
				return []string{"up", edit(t, dir, "cluster.yaml", "region: fra1", "region: ams3"), "--yes", "--allow-replace=do-cluster/platform"}
			},
			code: exitcode.OK, saysNot: []string{"blocked"},
		},
		{
			name: "destroy of a stack never deployed says so rather than failing to select it",
			setup: func(t *testing.T, b *deploytest.Backend, dir string) []string {
				return []string{"destroy", filepath.Join(dir, "cluster.yaml"), "--yes"}
			},
			code: exitcode.OK, says: []string{"not deployed: nothing to destroy"}, saysNot: []string{"exit status 6", "select stack"},
		},
		{
			name: "kubeconfig of a stack never deployed says to run up",
			setup: func(t *testing.T, b *deploytest.Backend, dir string) []string {
				return []string{"kubeconfig", filepath.Join(dir, "cluster.yaml")}
			},
			code: exitcode.Invalid, says: []string{"never deployed (run up)"}, saysNot: []string{"exit status 6", "select stack"},
		},
		{
			name: "destroying a cluster that a deployed pool stack references is refused naming the pool",
			setup: func(t *testing.T, b *deploytest.Backend, dir string) []string {
				deployed(t, b, dir)
				return []string{"destroy", filepath.Join(dir, "cluster.yaml"), "--yes"}
			},
			code: exitcode.Blocked, says: []string{"still referenced by the deployed stacks of digitaloceankubernetesnodepool/workers", "pool.yaml"},
			after: func(t *testing.T, b *deploytest.Backend, dir string) {
				if len(b.Resources("digitaloceankubernetescluster/platform-prod")) == 0 {
					t.Error("the cluster was destroyed")
				}
				// Named together, the pool goes first and the cluster after it.
				if r := deployRun(t, b, strings.NewReader(""), false, "destroy", dir, "--yes"); r.code != exitcode.OK {
					t.Errorf("destroy of both: exit %d\n%s%s", r.code, r.stdout, r.stderr)
				}
			},
		},
		{
			name: "a pool's status reads its cluster gone once the cluster stack is destroyed",
			setup: func(t *testing.T, b *deploytest.Backend, dir string) []string {
				deployed(t, b, dir)
				// Destroyed from a folder without the pool's manifest: nothing tells clusterplane of the pool.
				elsewhere := writeFiles(t, map[string]string{"cluster.yaml": readFile(t, filepath.Join(dir, "cluster.yaml"))})
				if r := deployRun(t, b, strings.NewReader(""), false, "destroy", elsewhere, "--yes"); r.code != exitcode.OK {
					t.Fatalf("destroy: %s%s", r.stdout, r.stderr)
				}
				return []string{"status", filepath.Join(dir, "pool.yaml")}
			},
			code: exitcode.OK, says: []string{"Ready=False", "ReferenceMissing"},
		},
		{
			name: "destroy --remove deletes the emptied stack from the backend",
			setup: func(t *testing.T, b *deploytest.Backend, dir string) []string {
				deployed(t, b, filepath.Join(dir, "cluster.yaml"))
				return []string{"destroy", filepath.Join(dir, "cluster.yaml"), "--yes", "--remove"}
			},
			code: exitcode.OK, says: []string{"destroyed: stack removed"},
			after: func(t *testing.T, b *deploytest.Backend, dir string) {
				if b.Has("digitaloceankubernetescluster/platform-prod") {
					t.Error("the stack is still there")
				}
			},
		},
		{
			name: "a failed preview of a new stack leaves no stack behind",
			setup: func(t *testing.T, b *deploytest.Backend, dir string) []string {
				b.Fail("digitaloceankubernetescluster/platform-prod", "preview", &stackstate.EngineError{Command: "preview", Cause: "401"})
				return []string{"preview", filepath.Join(dir, "cluster.yaml")}
			},
			code: exitcode.Invalid, says: []string{"1 failed"},
			after: func(t *testing.T, b *deploytest.Backend, dir string) {
				if b.Has("digitaloceankubernetescluster/platform-prod") {
					t.Error("the failed preview left a stack")
				}
			},
		},
		{
			name: "text status shows the generation against the observed one, and the outputs sorted",
			setup: func(t *testing.T, b *deploytest.Backend, dir string) []string {
				deployed(t, b, filepath.Join(dir, "cluster.yaml"))
				return []string{"status", edit(t, dir, "cluster.yaml", "nodeCount: 2", "nodeCount: 3")}
			},
			code: exitcode.NotReady, says: []string{"generation ", ", observed ", "ManifestChanged", "spec.defaultNodePool.nodeCount"},
			saysNot: []string{"kubeconfig:"},
			after: func(t *testing.T, b *deploytest.Backend, dir string) {
				var names []string
				for _, line := range strings.Split(deployRun(t, b, strings.NewReader(""), false, "status", filepath.Join(dir, "cluster.yaml")).stdout, "\n") {
					if name, _, ok := strings.Cut(strings.TrimPrefix(line, "  "), ": "); ok && strings.HasPrefix(line, "  ") && !strings.ContainsAny(name, " =") {
						names = append(names, name)
					}
				}
				if len(names) < 3 || !slicesSorted(names) {
					t.Errorf("outputs %v, want several, sorted", names)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := deploytest.New()
			dir := fleet(t)
			args := tt.setup(t, b, dir)
			stdin := tt.stdin
			if stdin == nil {
				stdin = strings.NewReader("")
			}
			r := deployRun(t, b, stdin, tt.terminal, args...)
			all := r.stdout + r.stderr
			if r.code != tt.code {
				t.Errorf("clusterplane %s = exit %d, want %d\n%s", strings.Join(args, " "), r.code, tt.code, all)
			}
			for _, s := range tt.says {
				if !strings.Contains(all, s) {
					t.Errorf("clusterplane %s does not say %q:\n%s", strings.Join(args, " "), s, all)
				}
			}
			for _, s := range tt.saysNot {
				if strings.Contains(all, s) {
					t.Errorf("clusterplane %s says %q:\n%s", strings.Join(args, " "), s, all)
				}
			}
			if tt.after != nil {
				tt.after(t, b, dir)
			}
		})
	}
}

func TestStatusAndDriftOfAFleetRunStacksInParallel(t *testing.T) {
	files := map[string]string{}
	base := readExample(t, "digitaloceankubernetescluster/minimal.yaml")
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		files[name+".yaml"] = strings.Replace(base, "name: dev-fra1", "name: "+name, 1)
	}
	dir := writeFiles(t, files)
	for _, cmd := range []string{"status", "drift", "preview"} {
		t.Run(cmd, func(t *testing.T) {
			b := deploytest.New()
			if cmd != "preview" {
				deployed(t, b, dir)
			}
			for name := range files {
				for _, op := range []string{"preview", "refresh", "export", "outputs", "history"} {
					b.Delay("digitaloceankubernetescluster/"+strings.TrimSuffix(name, ".yaml"), op, 20*time.Millisecond)
				}
			}
			if r := deployRun(t, b, strings.NewReader(""), false, cmd, dir, "--parallel", "4"); r.code != exitcode.OK {
				t.Fatalf("%s: exit %d\n%s%s", cmd, r.code, r.stdout, r.stderr)
			}
			if got := b.MaxRunning(); got < 2 || got > 4 {
				t.Errorf("%s --parallel 4 ran %d stacks at once", cmd, got)
			}
		})
	}
}

// Promise: refused-input-prints-no-report
func TestEveryDeployCommandWritesAReportTheSchemaAccepts(t *testing.T) {
	doc, err := validator.UnmarshalJSON(bytes.NewReader(runreport.ReportSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := validator.NewCompiler()
	if err := c.AddResource("report.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("report.json")
	if err != nil {
		t.Fatal(err)
	}
	b := deploytest.New()
	dir := fleet(t)
	for _, args := range [][]string{{"preview", dir}, {"up", dir, "--yes"}, {"refresh", dir}, {"drift", dir}, {"status", dir},
		{"destroy", dir, "--yes"}} {
		r := deployRun(t, b, strings.NewReader(""), false, append(args, "-o", "json")...)
		if r.code != exitcode.OK {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
		var report any
		if err := json.Unmarshal([]byte(r.stdout), &report); err != nil {
			t.Fatalf("%v -o json is no JSON: %v\n%s", args, err, r.stdout)
		}
		if err := schema.Validate(report); err != nil {
			t.Errorf("%v -o json does not validate: %#v", args, err)
		}
		if got := report.(map[string]any)["command"]; got != args[0] {
			t.Errorf("%v -o json says command %v", args, got)
		}
	}
}

func TestTheMarkdownReportOfAReplacingChangeNamesTheFieldAndTheReason(t *testing.T) {
	b := deploytest.New()
	dir := fleet(t)
	deployed(t, b, filepath.Join(dir, "cluster.yaml"))
	b.Replaces("nodePool")
	moved := edit(t, dir, "cluster.yaml", "size: s-2vcpu-4gb", "size: s-4vcpu-8gb")
	r := deployRun(t, b, strings.NewReader(""), false, "preview", moved, "-o", "markdown")
	if r.code != exitcode.Blocked {
		t.Errorf("preview of a replacement: exit %d, want 3\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"### clusterplane preview", "| `" + moved + "` |", "**replace**",
		"`spec.defaultNodePool.size`: `\"s-2vcpu-4gb\"` → `\"s-4vcpu-8gb\"` (replace):", "whole cluster"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the Markdown report does not say %q:\n%s", want, r.stdout)
		}
	}
}

// deployed runs up --yes of file (or folder) on b and fails the test unless it deploys.
func deployed(t *testing.T, b *deploytest.Backend, file string) {
	t.Helper()
	// One stack at a time, so that the backend's MaxRunning measures what a test runs after.
	if r := deployRun(t, b, strings.NewReader(""), false, "up", file, "--yes", "--parallel", "1"); r.code != exitcode.OK {
		t.Fatalf("up %s: exit %d\n%s%s", file, r.code, r.stdout, r.stderr)
	}
}

// edit replaces from with to in dir's file, and returns the file's path.
func edit(t *testing.T, dir, file, from, to string) string {
	t.Helper()
	path := filepath.Join(dir, file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), from) {
		t.Fatalf("%s has no %q", file, from)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), from, to, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func slicesSorted(s []string) bool {
	for i := 1; i < len(s); i++ {
		if s[i-1] > s[i] {
			return false
		}
	}
	return true
}

// Promise: ctrl-c-exits-130
// Promise: sigterm-cancels-like-ctrl-c
func TestCtrlCStopsTheFleetExitsOneHundredThirtyAndStillPrintsTheTable(t *testing.T) {
	for _, c := range []struct {
		name string
		sig  syscall.Signal
	}{
		{"Ctrl-C", syscall.SIGINT},
		{"a SIGTERM, as a cancelled CI job sends", syscall.SIGTERM},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := deploytest.New()
			dir := fleet(t)
			b.Delay("digitaloceankubernetescluster/platform-prod", "update", time.Minute)
			go func() {
				// Signal once the cluster's update runs: clusterplane listens for it by then.
				for !slices.Contains(b.Calls(), "update digitaloceankubernetescluster/platform-prod") {
					time.Sleep(5 * time.Millisecond)
				}
				_ = syscall.Kill(os.Getpid(), c.sig)
			}()
			start := time.Now()
			r := deployRun(t, b, strings.NewReader(""), false, "up", dir, "--yes")
			if r.code != exitcode.Interrupted {
				t.Errorf("up interrupted: exit %d, want %d\n%s%s", r.code, exitcode.Interrupted, r.stdout, r.stderr)
			}
			if time.Since(start) > 30*time.Second {
				t.Error("the interrupt did not stop the update")
			}
			for _, want := range []string{"cancelled before it started", "Stacks: 2 cancelled."} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("the table after the signal does not say %q:\n%s", want, r.stdout)
				}
			}
		})
	}
}
