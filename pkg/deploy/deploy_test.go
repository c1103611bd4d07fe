package deploy_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/queue"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

const clusterType = "digitalocean:index/kubernetesCluster:KubernetesCluster"

// manifest is an example manifest's text.
func manifest(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// target is the target of a manifest's text, as clusterplane reads it from file.
func target(t *testing.T, file, text string) deploytarget.Target {
	t.Helper()
	for _, env := range []string{digitalocean.TokenEnv, civo.TokenEnv, digitalocean.APIURLEnv, civo.APIURLEnv} {
		t.Setenv(env, "")
	}
	head, err := stackinput.ReadHead([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	k, ok := registry.Kinds().ByName(head.Kind)
	if !ok {
		t.Fatalf("no kind %s", head.Kind)
	}
	in := k.NewStackInput()
	if err := stackinput.Parse([]byte(text), file, in); err != nil {
		t.Fatal(err)
	}
	return deploytarget.NewTarget(file, k, in, "")
}

// cluster is the DigitalOcean cluster example, unprotected, each pair of replacements applied.
func cluster(t *testing.T, replacements ...string) deploytarget.Target {
	t.Helper()
	text := strings.Replace(manifest(t, "digitaloceankubernetescluster/minimal.yaml"), "\nspec:\n",
		"\nspec:\n  deletionProtection: false\n", 1)
	return target(t, "cluster.yaml", strings.NewReplacer(replacements...).Replace(text))
}

// namedCluster is a DigitalOcean cluster of name and env whose VPC is the vpc_uuid of the
// cluster stack vpcFrom ("name-env"), or the region's default when vpcFrom is "".
func namedCluster(t *testing.T, name, env, vpcFrom string) deploytarget.Target {
	t.Helper()
	vpc := ""
	if vpcFrom != "" {
		n, e, _ := strings.Cut(vpcFrom, "-")
		vpc = fmt.Sprintf("  vpc:\n    valueFrom: {kind: DigitalOceanKubernetesCluster, name: %s, env: %s}\n", n, e)
	}
	text := strings.Replace(clusterText(name, env), "  defaultNodePool:", vpc+"  defaultNodePool:", 1)
	return target(t, name+".yaml", text)
}

// pool is a DigitalOcean node pool named name in the cluster stack clusterFrom ("name-env").
func pool(t *testing.T, name, clusterFrom string) deploytarget.Target {
	t.Helper()
	n, e, _ := strings.Cut(clusterFrom, "-")
	text := poolText(name, n, e)
	return target(t, name+".yaml", text)
}

func statuses(outcomes []outcome.Outcome) string {
	var out []string
	for _, o := range outcomes {
		s := o.Target.Stack + " " + string(o.Status)
		if o.BlockedBy != "" {
			s += " by " + o.BlockedBy
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

// Promise: two-files-of-one-stack-refused
func TestOrderPutsEveryStackAfterTheStacksItReferencesAndNamesBothEndsOfAProblem(t *testing.T) {
	none := func(string) (bool, error) { return false, nil }
	a, b, c := pool(t, "a", "b-x"), namedCluster(t, "b", "x", "c-y"), namedCluster(t, "c", "y", "")
	sorted, deps, err := queue.Order([]deploytarget.Target{a, b, c}, none)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sorted {
		got = append(got, s.Stack)
	}
	if strings.Join(got, ",") != "c-y,b-x,a" || len(deps["digitaloceankubernetesnodepool/a"]) != 1 {
		t.Errorf("order = %v, deps %v; want c-y before b-x before a", got, deps)
	}
	gone := pool(t, "a", "gone-x")
	if _, _, err := queue.Order([]deploytarget.Target{gone}, none); err == nil ||
		!strings.Contains(err.Error(), "a.yaml references stack digitaloceankubernetescluster/gone-x") ||
		!strings.Contains(err.Error(), "give its manifest too, or deploy it first") {
		t.Errorf("a reference to nothing: %v", err)
	}
	if _, _, err := queue.Order([]deploytarget.Target{gone}, func(string) (bool, error) { return true, nil }); err != nil {
		t.Errorf("a reference to an existing stack: %v", err)
	}
	unreachable := func(string) (bool, error) { return false, errors.New("PULUMI_CONFIG_PASSPHRASE is not set") }
	if _, _, err := queue.Order([]deploytarget.Target{gone}, unreachable); err == nil ||
		!strings.Contains(err.Error(), "PULUMI_CONFIG_PASSPHRASE") || strings.Contains(err.Error(), "does not exist") {
		t.Errorf("a backend that cannot say: %v, want its own error, not that the stack does not exist", err)
	}
	x, y := namedCluster(t, "x", "one", "y-one"), namedCluster(t, "y", "one", "x-one")
	if _, _, err := queue.Order([]deploytarget.Target{x, y}, none); err == nil || !strings.Contains(err.Error(), "cycle") ||
		!strings.Contains(err.Error(), "x.yaml") || !strings.Contains(err.Error(), "y.yaml") {
		t.Errorf("a cycle: %v", err)
	}
	// Copies that differ (three nodes): two manifests of one stack.
	twice := target(t, "copy.yaml", strings.Replace(clusterText("x", "one"), "nodeCount: 2", "nodeCount: 3", 1))
	again := target(t, "copy-y.yaml", strings.Replace(clusterText("y", "one"), "nodeCount: 2", "nodeCount: 3", 1))
	// Every pair is said at once, not the first only (newcomer7: 13 pairs, said one a run).
	if _, _, err := queue.Order([]deploytarget.Target{twice, namedCluster(t, "x", "one", ""), again, namedCluster(t, "y", "one", "")}, none); err == nil ||
		!strings.Contains(err.Error(), "copy.yaml and x.yaml both deploy stack digitaloceankubernetescluster/x-one") ||
		!strings.Contains(err.Error(), "copy-y.yaml and y.yaml both deploy stack digitaloceankubernetescluster/y-one: give only one of them") {
		t.Errorf("two files of each of two stacks: %v", err)
	}
}

// newcomer7: --stack given the name every table prints failed with the Pulumi CLI's "organization
// name must be 'organization'".
func TestAStackIsNamedByItsNameOrAsTheTablesOrThePulumiCLIName(t *testing.T) {
	k, _ := registry.Kinds().ByName("DigitalOceanKubernetesCluster")
	data := []byte(manifest(t, "digitaloceankubernetescluster/minimal.yaml"))
	tests := []struct {
		stack string
		// want is the target's stack; "" when refused with says.
		want, says string
	}{
		{"", "dev-fra1", ""},
		{"blue", "blue", ""},
		{"digitaloceankubernetescluster/blue", "blue", ""},
		{"organization/digitaloceankubernetescluster/blue", "blue", ""},
		{"civokubernetescluster/blue", "", "--stack civokubernetescluster/blue names a stack of civokubernetescluster, and cluster.yaml is a DigitalOceanKubernetesCluster"},
		{"team/digitaloceankubernetescluster/blue", "", "give the stack's name (dev-fra1), or digitaloceankubernetescluster/NAME"},
		{"digitaloceankubernetescluster/", "", "give the stack's name"},
	}
	for _, tt := range tests {
		t.Run(tt.stack, func(t *testing.T) {
			got, err := deploytarget.Read(k, "cluster.yaml", data, tt.stack)
			if tt.want != "" && (err != nil || got.Stack != tt.want) {
				t.Errorf("--stack %q: stack %q, %v; want %q", tt.stack, got.Stack, err, tt.want)
			}
			if tt.want == "" && (err == nil || !strings.Contains(err.Error(), tt.says)) {
				t.Errorf("--stack %q: %v, want an error saying %q", tt.stack, err, tt.says)
			}
		})
	}
}

// Promise: two-files-of-one-stack-refused
func TestAManifestAndItsStackInputFormAreOneStackDeployedFromTheManifest(t *testing.T) {
	manifest := clusterText("x", "one")
	var stackInput strings.Builder
	stackInput.WriteString("target:\n")
	for _, line := range strings.Split(strings.TrimRight(manifest, "\n"), "\n") {
		stackInput.WriteString("  " + line + "\n")
	}
	tests := []struct {
		name string
		// files are the targets given, by file name and text.
		files [][2]string
		// want are the files of the targets kept, in order; refused, what the error says.
		want    []string
		refused string
	}{
		{name: "the stack-input form first, then the manifest: the manifest is kept",
			files: [][2]string{{"x.stack-input.yaml", stackInput.String() + "providerConfig: {}\n"}, {"x.yaml", manifest}},
			want:  []string{"x.yaml"}},
		{name: "the manifest first, then the stack-input form without providerConfig",
			files: [][2]string{{"x.yaml", manifest}, {"x.stack-input.yaml", stackInput.String()}},
			want:  []string{"x.yaml"}},
		{name: "a stack input whose providerConfig says something is another target",
			files:   [][2]string{{"x.yaml", manifest}, {"x.stack-input.yaml", stackInput.String() + "providerConfig: {apiToken: dop_v1_another-account}\n"}},
			refused: "x.yaml and x.stack-input.yaml both deploy stack"},
		{name: "a stack input of another manifest of the stack is refused",
			files:   [][2]string{{"x.yaml", manifest}, {"x.stack-input.yaml", strings.Replace(stackInput.String(), "nodeCount: 2", "nodeCount: 3", 1)}},
			refused: "x.yaml and x.stack-input.yaml both deploy stack"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var targets []deploytarget.Target
			for _, f := range tt.files {
				targets = append(targets, target(t, f[0], f[1]))
			}
			sorted, _, err := queue.Order(targets, func(string) (bool, error) { return false, nil })
			if tt.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tt.refused) {
					t.Fatalf("Order = %v, want refused saying %q", err, tt.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var files []string
			for _, s := range sorted {
				files = append(files, s.File)
			}
			if strings.Join(files, " ") != strings.Join(tt.want, " ") {
				t.Errorf("kept %v, want %v", files, tt.want)
			}
		})
	}
}
