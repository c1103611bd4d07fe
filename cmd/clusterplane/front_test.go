package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

// frontFile reads an example manifest, for the front door's tests.
func frontFile(t *testing.T, kind, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(examples, kind, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// writeTree writes files (path → text) under a new folder and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestTheFrontDoorNamesEachMistakeOfAFileWithItsLine(t *testing.T) {
	cluster := frontFile(t, "digitaloceankubernetescluster", "minimal.yaml")
	// lineOf is the line of the example where s first stands.
	lineOf := func(text, s string) string {
		return strconv.Itoa(strings.Count(text[:strings.Index(text, s)], "\n") + 1)
	}
	tests := []struct {
		name, text string
		says       []string
	}{
		{"a tab", strings.Replace(cluster, "  name: dev-fra1", "\tname: dev-fra1", 1),
			[]string{"f.yaml:" + lineOf(cluster, "  name: dev-fra1") + ":1: not valid YAML", "tabs are not allowed for indentation; use spaces"}},
		{"an unclosed quote", strings.Replace(cluster, "region: fra1", `region: "fra1`, 1),
			[]string{"f.yaml:" + lineOf(cluster, "region: fra1") + ":11: not valid YAML", "a quoted value is not closed"}},
		{"an empty file", "", []string{"f.yaml: holds no manifest: the file is empty or only comments"}},
		{"only comments", "# a manifest\n# to come\n", []string{"f.yaml: holds no manifest"}},
		{"an unknown kind", strings.Replace(cluster, "kind: DigitalOceanKubernetesCluster", "kind: DigitalOceanCluster", 1),
			[]string{"f.yaml:" + lineOf(cluster, "kind:") + ":7: kind: unknown kind \"DigitalOceanCluster\"; did you mean DigitalOceanKubernetesCluster?"}},
		{"a kind of the other cloud", strings.Replace(cluster, "kind: DigitalOceanKubernetesCluster", "kind: CivoKubernetesCluster", 1),
			[]string{"f.yaml:" + lineOf(cluster, "kind:") + ":7: kind: CivoKubernetesCluster is not a kind of \"digitalocean.clusterplane.dev/v1\": set apiVersion: " +
				"civo.clusterplane.dev/v1 if the manifest is for Civo, or kind: DigitalOceanKubernetesCluster if it is for DigitalOcean"}},
		{"a second manifest's mistake", cluster + "---\n" + strings.Replace(cluster, "nodeCount: 2", "nodeCount: -1", 1),
			[]string{"f.yaml:" + strconv.Itoa(strings.Count(cluster, "\n")+1+strings.Count(cluster[:strings.Index(cluster, "nodeCount")], "\n")+1) + ":5: spec.defaultNodePool.nodeCount:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"f.yaml": tt.text})
			for _, args := range [][]string{{"validate", "f.yaml"}, {"validate", "."}, {"plan", "f.yaml"}} {
				t.Chdir(dir)
				r := run(t, "", args...)
				if r.code != exitcode.Invalid {
					t.Errorf("%v: exit %d, want 1; stdout:\n%s", args, r.code, r.stdout)
				}
				for _, s := range tt.says {
					if args[1] == "." {
						s = strings.Replace(s, "f.yaml", filepath.Join(".", "f.yaml"), 1)
					}
					if !strings.Contains(r.stderr, s) {
						t.Errorf("%v: stderr does not say %q:\n%s", args, s, r.stderr)
					}
				}
			}
		})
	}
}

func TestAFileOfAClusterAndItsPoolHoldsTwoManifests(t *testing.T) {
	cluster := frontFile(t, "digitaloceankubernetescluster", "minimal.yaml")
	pool := frontFile(t, "digitaloceankubernetesnodepool", "cluster-by-reference.yaml")
	dir := writeTree(t, map[string]string{"both.yaml": "---\n" + cluster + "---\n" + pool + "...\n"})
	t.Chdir(dir)
	r := run(t, "", "validate", "both.yaml")
	want := "both.yaml: valid DigitalOceanKubernetesCluster\nboth.yaml: valid DigitalOceanKubernetesNodePool\n2 valid, 0 invalid, 0 skipped\n"
	if r.code != exitcode.OK || r.stdout != want {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant:\n%s", r.code, r.stdout, r.stderr, want)
	}
	r = run(t, "", "plan", "both.yaml")
	if r.code != exitcode.OK || !strings.Contains(r.stdout, "digitalocean:index/kubernetesCluster:KubernetesCluster") ||
		!strings.Contains(r.stdout, "digitalocean:index/kubernetesNodePool:KubernetesNodePool") {
		t.Errorf("plan: exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestAFolderWalkSkipsOtherToolsFoldersAndWhatGitignoreIgnores(t *testing.T) {
	cluster := frontFile(t, "digitaloceankubernetescluster", "minimal.yaml")
	broken := "apiVersion: digitalocean.clusterplane.dev/v1\nkind: DigitalOceanKubernetesCluster\nspec: {}\n"
	dir := writeTree(t, map[string]string{
		"cluster.yaml":                   cluster,
		"node_modules/pkg/tsconfig.json": `{"compilerOptions": {}}`,
		"node_modules/pkg/broken.yaml":   broken,
		"vendor/x/broken.yaml":           broken,
		".terraform/broken.yaml":         broken,
		".github/workflows/ci.yaml":      broken,
		"build/broken.yaml":              broken,
		"drafts/wip.draft.yaml":          broken,
		"anchored/broken.yaml":           broken,
		"deeper/anchored/kept.yaml":      cluster,
		".gitignore":                     "# build output\nbuild/\n*.draft.yaml\n/anchored\n!kept.yaml\nsrc/**/x.yaml\n",
		"sub/.gitignore":                 "kept-anyway.yaml\n",
		"sub/kept-anyway.yaml":           cluster,
		"node_modules_not/cluster.yaml":  cluster,
	})
	r := run(t, "", "validate", dir)
	if r.code != exitcode.OK || r.stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s\nstdout:\n%s", r.code, r.stderr, r.stdout)
	}
	if !strings.HasSuffix(r.stdout, "4 valid, 0 invalid, 0 skipped\n") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
}

func TestEachDeployCommandsHelpListsOnlyTheFlagsItUses(t *testing.T) {
	shared := []string{"--help", "--output", "--stack"}
	// many: the flags of a command that runs stacks on the engine, several at once.
	many := []string{"--parallel", "--quiet", "--report-file", "--stack-timeout", "--verbose"}
	tests := []struct {
		command string
		flags   []string
	}{
		{"preview", append(many, "--all", "--changed-since", "--deep", "--policy", "--refresh", "--retarget", "--save-plan", "--secrets-provider")},
		{"up", append(many, "--all", "--allow-replace", "--changed-since", "--deep", "--plan", "--policy", "--refresh", "--retarget", "--secrets-provider", "--yes")},
		{"refresh", append(many, "--all", "--clear-pending-creates", "--import-pending-create")},
		{"drift", append(many, "--all", "--deep", "--fail-on-pending")},
		{"status", append(many, "--deep", "--drift", "--kind", "--only", "--selector", "--sort-by", "--wide")},
		{"destroy", append(many, "--all", "--remove", "--yes")},
		{"kubeconfig", []string{"--output-file"}},
		{"adopt", append(many, "--exact", "--id", "--secrets-provider")},
	}
	flag := regexp.MustCompile(`--[a-z][a-z-]*`)
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			r := run(t, "", tt.command, "--help")
			_, flags, _ := strings.Cut(r.stdout, "\nFlags:\n")
			got := slices.Compact(slices.Sorted(slices.Values(flag.FindAllString(flags, -1))))
			want := slices.Sorted(slices.Values(append(slices.Clone(shared), tt.flags...)))
			if !slices.Equal(got, want) {
				t.Errorf("%s --help lists %v, want %v", tt.command, got, want)
			}
		})
	}
}

func TestADeployOfAFileOfAClusterAndItsPoolDeploysBothAndKubeconfigAndAdoptRefuseIt(t *testing.T) {
	dir := fleet(t)
	both := filepath.Join(dir, "both.yaml")
	var text string
	for _, name := range []string{"cluster.yaml", "pool.yaml"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		text += "---\n" + string(data)
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(both, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	b := deploytest.New()
	steps := []struct {
		args []string
		code int
		says string
	}{
		// The first preview of a new fleet: the pool cannot be previewed before its cluster
		// exists, and says so without failing.
		{[]string{"preview", both}, exitcode.OK, "not previewed: it reads stack digitaloceankubernetescluster/platform-prod, not deployed yet"},
		{[]string{"up", both, "--yes"}, exitcode.OK, "Stacks: 2 changed."},
		{[]string{"kubeconfig", both}, exitcode.Usage, "holds 2 manifests: this command takes one"},
		{[]string{"adopt", both, "--id", "cluster-7"}, exitcode.Invalid, "--id is the cloud id of one manifest, and 2 were given"},
	}
	for _, s := range steps {
		r := deployRun(t, b, strings.NewReader(""), false, s.args...)
		if r.code != s.code || !strings.Contains(r.stdout+r.stderr, s.says) {
			t.Errorf("clusterplane %s = exit %d, want %d saying %q\nstdout:\n%s\nstderr:\n%s", strings.Join(s.args, " "), r.code, s.code, s.says, r.stdout, r.stderr)
		}
	}
	if !b.Has("digitaloceankubernetescluster/platform-prod") || !b.Has("digitaloceankubernetesnodepool/workers") {
		t.Errorf("up of both.yaml did not deploy the cluster and the pool")
	}
}

func TestAMistypedOrMisplacedFlagIsAUsageErrorNamingTheFlagMeant(t *testing.T) {
	tests := []struct {
		name string
		args []string
		says string
	}{
		{"a flag spelled wrong", []string{"preview", "--paralel", "2", "x.yaml"}, "unknown flag: --paralel; did you mean --parallel?"},
		{"a switch turned off as other tools spell it", []string{"up", "--no-refresh", "x.yaml"}, "unknown flag: --no-refresh; did you mean --refresh=false?"},
		{"two letters swapped", []string{"up", "--yse", "x.yaml"}, "unknown flag: --yse; did you mean --yes?"},
		{"a flag of other commands", []string{"refresh", "--yes", "x.yaml"}, "unknown flag: --yes; refresh does not take it, destroy and up do"},
		{"a flag of a subcommand's parent's siblings", []string{"upgrade", "plan", "--yes", "x.yaml"}, "unknown flag: --yes; upgrade plan does not take it, destroy and up do"},
		{"a flag no command takes", []string{"validate", "--bogus", "x.yaml"}, "clusterplane: unknown flag: --bogus\n"},
		{"pulumi's -y", []string{"up", "-y", "x.yaml"}, "unknown shorthand flag: 'y' in -y; did you mean --yes?"},
		{"terraform's --auto-approve", []string{"destroy", "--auto-approve", "x.yaml"}, "unknown flag: --auto-approve; did you mean --yes?"},
		{"a dry run", []string{"up", "--dry-run", "x.yaml"}, "unknown flag: --dry-run; `clusterplane preview` shows what up would change"},
		{"a letter no flag starts with", []string{"preview", "-x", "x.yaml"}, "clusterplane: unknown shorthand flag: 'x' in -x\n"},
		{"a base commit left empty", []string{"up", "--changed-since=", "x.yaml"}, `--changed-since "": names no commit`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, "", tt.args...)
			if r.code != exitcode.Usage || !strings.Contains(r.stderr, tt.says) {
				t.Errorf("%v: exit %d, want %d saying %q\nstderr:\n%s", tt.args, r.code, exitcode.Usage, tt.says, r.stderr)
			}
		})
	}
}

// newcomer7: inside the sandbox a stack input with its own token was refused only at the first
// request, under "look for a cluster ... before creating one"; it is refused at its line first.
// Promise: sandbox-provider-config-refused
func TestInsideTheSandboxAProviderConfigOfItsOwnIsRefusedAtItsLineBeforeAnyStack(t *testing.T) {
	text := strings.Replace(frontFile(t, "digitaloceankubernetescluster", "minimal.stack-input.yaml"), "providerConfig: {}",
		"providerConfig:\n  apiToken: dop_v1_not-the-sandboxs\n", 1)
	tests := []struct {
		name    string
		sandbox bool
	}{
		{"inside the sandbox", true},
		// Outside, the token goes to DigitalOcean, which this test cannot reach: only the
		// sandbox's refusal is looked for.
		{"outside it", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"own.stack-input.yaml": text})
			b := deploytest.New()
			sandbox := ""
			if tt.sandbox {
				sandbox = t.TempDir()
			}
			t.Setenv(cloudfacts.SandboxEnv, sandbox)
			r := deployRun(t, b, strings.NewReader(""), false, "preview", dir)
			refused := regexp.MustCompile(`own\.stack-input\.yaml:\d+:\d+: providerConfig\.apiToken: providerConfig sets apiToken or apiUrl, which the clusterplane sandbox refuses`)
			if refused.MatchString(r.stderr) != tt.sandbox || (tt.sandbox && r.code != exitcode.Invalid) ||
				(!tt.sandbox && strings.Contains(r.stdout+r.stderr, "sandbox")) {
				t.Errorf("preview: exit %d, refused in the sandbox's words: %v, want %v\nstdout:\n%s\nstderr:\n%s",
					r.code, refused.MatchString(r.stderr), tt.sandbox, r.stdout, r.stderr)
			}
			if tt.sandbox && len(b.Calls()) > 0 {
				t.Errorf("the engine ran: %v", b.Calls())
			}
			if strings.Contains(r.stdout+r.stderr, "not-the-sandboxs") {
				t.Errorf("the token was printed:\n%s%s", r.stdout, r.stderr)
			}
		})
	}
}

func TestDiffOfTwoFilesOfAClusterAndItsPoolComparesThemStackByStack(t *testing.T) {
	cluster := frontFile(t, "digitaloceankubernetescluster", "production.yaml")
	pool := frontFile(t, "digitaloceankubernetesnodepool", "cluster-by-reference.yaml")
	scaled := strings.Replace(pool, "nodeCount: 2", "nodeCount: 3", 1)
	if scaled == pool {
		t.Fatal("the pool example has no nodeCount: 2 to change")
	}
	dir := writeTree(t, map[string]string{
		"old.yaml":     "---\n" + cluster + "---\n" + pool,
		"new.yaml":     "---\n" + cluster + "---\n" + scaled,
		"cluster.yaml": cluster,
	})
	t.Chdir(dir)
	const clusterStack, poolStack = "== digitaloceankubernetescluster/platform-ams3-prod\n", "== digitaloceankubernetesnodepool/platform-ams3-batch-prod"
	tests := []struct {
		name string
		args []string
		// says are what stdout holds, in this order.
		says []string
	}{
		{"a change to the pool is the pool's, the cluster's unchanged", []string{"diff", "old.yaml", "new.yaml"},
			[]string{clusterStack, "no changes", poolStack + "\n", "update   spec.nodeCount\n         2 -> 3"}},
		{"a manifest of NEW only is added, with what it creates", []string{"diff", "cluster.yaml", "new.yaml"},
			[]string{clusterStack, poolStack + ": added, in new.yaml only; it creates:", "digitalocean:index/kubernetesNodePool:KubernetesNodePool"}},
		{"a manifest of OLD only is removed", []string{"diff", "old.yaml", "cluster.yaml"},
			[]string{clusterStack, poolStack + ": removed, in old.yaml only"}},
		{"json lists each stack and what happens to it", []string{"diff", "cluster.yaml", "new.yaml", "-o", "json"},
			[]string{`"stack": "digitaloceankubernetescluster/platform-ams3-prod",`, `"change": "compared",`,
				`"stack": "digitaloceankubernetesnodepool/platform-ams3-batch-prod",`, `"change": "added",`, `"plan": {`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, "", tt.args...)
			rest := r.stdout
			for _, s := range tt.says {
				i := strings.Index(rest, s)
				if i < 0 {
					t.Fatalf("exit %d, stdout lacks %q (after what came before):\n%s\nstderr:\n%s", r.code, s, r.stdout, r.stderr)
				}
				rest = rest[i+len(s):]
			}
			if r.code != exitcode.OK {
				t.Errorf("exit %d, want 0; stderr:\n%s", r.code, r.stderr)
			}
		})
	}
}
