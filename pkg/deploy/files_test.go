package deploy_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/manifest/files"
)

// reading reads files as clusterplane does, over every kind.
func reading(t *testing.T, stack string, one bool) deploytarget.Files {
	t.Helper()
	for _, env := range []string{digitalocean.TokenEnv, civo.TokenEnv, digitalocean.APIURLEnv, civo.APIURLEnv} {
		t.Setenv(env, "")
	}
	list := registry.Kinds()
	reader := files.Reader{Kinds: list.Names(), Stdin: strings.NewReader("")}
	return deploytarget.Files{Reader: reader, Kinds: list, Stack: stack, One: one}
}

// clusterText is an unprotected DigitalOcean cluster manifest of name and env.
func clusterText(name, env string) string {
	return fmt.Sprintf(`apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesCluster
metadata:
  name: %s
  env: %s
spec:
  clusterName: %s
  region: fra1
  kubernetesVersion: 1.31.1-do.5
  deletionProtection: false
  defaultNodePool:
    size: s-2vcpu-4gb
    nodeCount: 2
`, name, env, name)
}

// poolText is a DigitalOcean node pool manifest in the cluster of name and env.
func poolText(pool, name, env string) string {
	return fmt.Sprintf(`apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesNodePool
metadata:
  name: %s
spec:
  nodePoolName: %s
  cluster:
    valueFrom: {kind: DigitalOceanKubernetesCluster, name: %s, env: %s}
  size: s-2vcpu-4gb
  nodeCount: 2
`, pool, pool, name, env)
}

// folder writes files (name: text) into a new folder and returns it.
func folder(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func keys(targets []deploytarget.Target) []string {
	var out []string
	for _, t := range targets {
		out = append(out, t.Key()+" "+filepath.Base(t.File))
	}
	slices.Sort(out)
	return out
}

func TestFilesBecomeTargetsEachManifestOfAFileItsOwnAndEveryProblemIsSaidBeforeAny(t *testing.T) {
	fleet := folder(t, map[string]string{
		"cluster.yaml": clusterText("platform", "prod"),
		"pool.yaml":    poolText("workers", "platform", "prod"),
		"notes.yaml":   "just: some other tool's yaml\n",
	})
	both := folder(t, map[string]string{"both.yaml": clusterText("platform", "prod") + "---\n" + poolText("workers", "platform", "prod")})
	broken := folder(t, map[string]string{
		"cluster.yaml":  clusterText("platform", "prod"),
		"bad-size.yaml": strings.Replace(poolText("workers", "platform", "prod"), "nodeCount: 2", "nodeCount: -2", 1),
		"bad-kind.yaml": strings.Replace(clusterText("other", "prod"), "kind: DigitalOceanKubernetesCluster", "kind: DigitalOceanKubernetesClustr", 1),
	})
	empty := folder(t, map[string]string{"notes.yaml": "just: some other tool's yaml\n"})
	for _, tc := range []struct {
		name  string
		stack string
		one   bool
		files []string
		// want are the targets' keys and files; problems the words each problem says, in order; err
		// the command line's mistake.
		want     []string
		problems []string
		err      string
	}{
		{name: "a folder gives each manifest and skips other YAML", files: []string{fleet},
			want: []string{"digitaloceankubernetescluster/platform-prod cluster.yaml", "digitaloceankubernetesnodepool/workers pool.yaml"}},
		{name: "a file of two manifests gives two targets of that file", files: []string{filepath.Join(both, "both.yaml")},
			want: []string{"digitaloceankubernetescluster/platform-prod both.yaml", "digitaloceankubernetesnodepool/workers both.yaml"}},
		{name: "--stack names the one manifest's stack", stack: "team-a", files: []string{filepath.Join(fleet, "cluster.yaml")},
			want: []string{"digitaloceankubernetescluster/team-a cluster.yaml"}},
		{name: "every broken file is a problem of its own, and no target is given", files: []string{broken},
			problems: []string{"bad-kind.yaml", "bad-size.yaml"}},
		{name: "a folder without a manifest is a problem", files: []string{empty},
			problems: []string{"no manifest or stack input in " + empty}},
		{name: "--stack with several manifests is refused", stack: "team-a", files: []string{fleet},
			err: "--stack names the stack of one manifest, and 2 were given"},
		{name: "a command of one manifest refuses a file of two", one: true, files: []string{filepath.Join(both, "both.yaml")},
			err: "holds 2 manifests: this command takes one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			targets, err := reading(t, tc.stack, tc.one).Targets(tc.files)
			var problems *deploytarget.ProblemsError
			switch {
			case tc.problems != nil:
				if !errors.As(err, &problems) || len(problems.Problems) != len(tc.problems) {
					t.Fatalf("got %v (%v), want %d problems", err, keys(targets), len(tc.problems))
				}
				for i, says := range tc.problems {
					if !strings.Contains(problems.Problems[i].Error(), says) {
						t.Errorf("problem %d: %q does not say %q", i, problems.Problems[i], says)
					}
				}
			case tc.err != "":
				if err == nil || errors.As(err, &problems) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want the command line's mistake %q", err, tc.err)
				}
			case err != nil:
				t.Fatal(err)
			case !slices.Equal(keys(targets), tc.want):
				t.Errorf("targets %q, want %q", keys(targets), tc.want)
			}
		})
	}
}

// A folder holding scratch copies of a pool's manifest (pool-more.yaml, pool.orig.yaml) names one
// referencing stack, not one per file: the refusal lists that stack once, with its files.
func TestTheDestroyGuardListsAReferencingStackOnceWhateverItsFiles(t *testing.T) {
	pool := poolText("workers", "platform", "prod")
	dir := folder(t, map[string]string{
		"cluster.yaml":   clusterText("platform", "prod"),
		"pool.yaml":      pool,
		"pool-more.yaml": pool,
		"pool.orig.yaml": pool,
	})
	ctx := context.Background()
	f := reading(t, "", false)
	cluster, err := f.Targets([]string{filepath.Join(dir, "cluster.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	pools, err := f.Targets([]string{filepath.Join(dir, "pool.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	b := deploytest.New()
	d := &deploy.Deployer{Backend: b}
	mustUp(ctx, t, d, cluster[0])
	mustUp(ctx, t, d, pools[0])
	refused, err := f.DestroyGuard(ctx, b, []string{filepath.Join(dir, "cluster.yaml")}, cluster)
	if err != nil {
		t.Fatal(err)
	}
	var referenced *stackstate.ReferencedError
	if err := refused[cluster[0].Key()]; !errors.As(err, &referenced) || len(referenced.By) != 1 {
		t.Fatalf("the cluster's destroy: %v, want it refused by one stack", err)
	}
	for _, file := range []string{"pool.yaml", "pool-more.yaml", "pool.orig.yaml"} {
		if !strings.HasPrefix(referenced.By[0], pools[0].Key()+" (") || !strings.Contains(referenced.By[0], filepath.Join(dir, file)) {
			t.Errorf("the refusal names %q, want %s once with its file %s", referenced.By[0], pools[0].Key(), file)
		}
	}
}

func TestTheDestroyGuardRefusesAClusterThatADeployedPoolBesideItReferences(t *testing.T) {
	dir := folder(t, map[string]string{
		"cluster.yaml": clusterText("platform", "prod"),
		"pool.yaml":    poolText("workers", "platform", "prod"),
		// A broken neighbour is no reason to refuse, nor a reason to fail.
		"broken.yaml": strings.Replace(poolText("other", "platform", "prod"), "nodeCount: 2", "nodeCount: -2", 1),
	})
	ctx := context.Background()
	f := reading(t, "", false)
	cluster, err := f.Targets([]string{filepath.Join(dir, "cluster.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	all, err := f.Targets([]string{filepath.Join(dir, "cluster.yaml"), filepath.Join(dir, "pool.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	b := deploytest.New()
	d := &deploy.Deployer{Backend: b}
	mustUp(ctx, t, d, cluster[0])
	guard := func(targets []deploytarget.Target) map[string]error {
		t.Helper()
		refused, err := f.DestroyGuard(ctx, b, []string{filepath.Join(dir, "cluster.yaml")}, targets)
		if err != nil {
			t.Fatal(err)
		}
		return refused
	}
	if refused := guard(cluster); len(refused) != 0 {
		t.Errorf("a pool never deployed refused the cluster's destroy: %v", refused)
	}
	pool := all[1]
	mustUp(ctx, t, d, pool)
	refused := guard(cluster)
	var referenced *stackstate.ReferencedError
	if err := refused[cluster[0].Key()]; !errors.As(err, &referenced) || !slices.Equal(referenced.By, []string{pool.Key() + " (" + pool.File + ")"}) {
		t.Errorf("the cluster's destroy: %v, want it refused by %s", err, pool.Key())
	}
	if len(refused) != 1 {
		t.Errorf("refused %v, want only the cluster", refused)
	}
	if refused := guard(all); len(refused) != 0 {
		t.Errorf("the pool destroyed in the same run still refused the cluster's: %v", refused)
	}
}
