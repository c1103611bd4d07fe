package diff_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ccv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	cpv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	dcv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	dpv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	dov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/internal/testing/diffpairs"
	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"google.golang.org/protobuf/proto"
)

// kind is a kind of the list with the example its pairs start from.
type kind = diffpairs.Kind

// pair is an OLD/NEW pair of a kind's stack input. Each kind's pairs, one or more for every row
// of its effects table, live in its own folder (iac/pulumi/<kind>/testdata/diff-pairs.yaml, run by
// its entry/diff_test.go); the tests here are of diff itself, on whichever kind shows it best.
type pair = diffpairs.Pair

// kindNamed is the kind of the list named name.
func kindNamed(name string) kind {
	k, ok := registry.Kinds().ByName(name)
	if !ok {
		panic("no kind " + name + " in iac/pulumi/registry")
	}
	return diffpairs.Of(k)
}

var (
	civoCluster = kindNamed("CivoKubernetesCluster")
	civoPool    = kindNamed("CivoKubernetesNodePool")
	doCluster   = kindNamed("DigitalOceanKubernetesCluster")
	doPool      = kindNamed("DigitalOceanKubernetesNodePool")
)

// Typed edits of each kind's stack input.
func cc(f func(*ccv1.CivoKubernetesClusterSpec)) func(proto.Message) {
	return func(m proto.Message) { f(m.(*ccv1.CivoKubernetesClusterStackInput).Target.Spec) }
}
func cp(f func(*cpv1.CivoKubernetesNodePoolSpec)) func(proto.Message) {
	return func(m proto.Message) { f(m.(*cpv1.CivoKubernetesNodePoolStackInput).Target.Spec) }
}
func dc(f func(*dcv1.DigitalOceanKubernetesClusterSpec)) func(proto.Message) {
	return func(m proto.Message) { f(m.(*dcv1.DigitalOceanKubernetesClusterStackInput).Target.Spec) }
}
func dp(f func(*dpv1.DigitalOceanKubernetesNodePoolSpec)) func(proto.Message) {
	return func(m proto.Message) { f(m.(*dpv1.DigitalOceanKubernetesNodePoolStackInput).Target.Spec) }
}

// Every kind of the list holds its OLD/NEW pairs in its own folder and checks them there, with
// every row of its table covered (diffpairs.Check): a kind without them fails here.
func TestEveryKindChecksItsOldNewPairsInItsFolder(t *testing.T) {
	for _, k := range registry.Kinds() {
		path := filepath.Join("..", "..", "..", "iac", "pulumi", k.Project, "entry", "diff_test.go")
		text, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(text), "diffpairs.Check(t, entry.Kind(), ") {
			t.Errorf("%s, a kind of iac/pulumi/registry, has no OLD/NEW pairs checked in %s (diffpairs.Check): %v", k.Name, path, err)
		}
	}
}

func TestDiffNamesTheResourceTheChangeLandsOn(t *testing.T) {
	cases := []struct {
		pair pair
		want string
	}{
		{pair{Kind: doCluster, Change: dc(func(s *dcv1.DigitalOceanKubernetesClusterSpec) { s.ClusterName = "dev-fra1-b" })},
			"digitalocean:index/kubernetesCluster:KubernetesCluster::dev-fra1"},
		{pair{Kind: civoCluster, Change: cc(func(s *ccv1.CivoKubernetesClusterSpec) { s.ApiServerAllowedCidrs = []string{"203.0.113.0/24"} })},
			"civo:index/firewall:Firewall::dev-fra1"},
		{pair{Kind: doCluster, Change: func(m proto.Message) {
			m.(*dcv1.DigitalOceanKubernetesClusterStackInput).ProviderConfig = &dov1.DigitalOceanProviderConfig{ApiToken: "dop-token-of-another-key"}
		}}, "pulumi:providers:digitalocean::dev-fra1"},
	}
	for _, c := range cases {
		result, _, _ := c.pair.Diff(t)
		if len(result.Changes) != 1 || result.Changes[0].Resource != c.want {
			t.Errorf("changes = %+v, want one on %s", result.Changes, c.want)
		}
	}
}

func TestDiffShowsSecretsAsSecretAndNeverTheirValue(t *testing.T) {
	p := pair{Kind: doCluster, Edit: func(m proto.Message) {
		m.(*dcv1.DigitalOceanKubernetesClusterStackInput).ProviderConfig = &dov1.DigitalOceanProviderConfig{ApiToken: "tok-SENTINEL-OLD"}
	}, Change: func(m proto.Message) {
		m.(*dcv1.DigitalOceanKubernetesClusterStackInput).ProviderConfig.ApiToken = "tok-SENTINEL-NEW"
	}}
	oldFile, newFile := p.Files(t)
	for _, format := range []string{"json", "text"} {
		var stdout, stderr bytes.Buffer
		p.Kind.Run([]string{"diff", oldFile, newFile, "-o", format}, &stdout, &stderr)
		out := stdout.String() + stderr.String()
		if strings.Contains(out, "SENTINEL") {
			t.Errorf("diff -o %s printed a token: %s", format, out)
		}
		if !strings.Contains(out, diff.Secret) {
			t.Errorf("diff -o %s does not show the change as %s: %s", format, diff.Secret, out)
		}
	}
}

func TestDiffOfIdenticalInputsSaysNoChangesAndExitsZero(t *testing.T) {
	p := pair{Kind: doCluster, Change: func(proto.Message) {}}
	result, code, _ := p.Diff(t)
	if code != exitcode.OK || len(result.Changes) != 0 || result.Replaces || result.Refuses {
		t.Errorf("exit %d, result %+v; want 0 and no changes", code, result)
	}
	var stdout, stderr bytes.Buffer
	code = p.Kind.Run([]string{"diff", p.Kind.Example, p.Kind.Example}, &stdout, &stderr)
	if code != exitcode.OK || stdout.String() != "no changes\n" {
		t.Errorf("text diff = %q, exit %d; want \"no changes\" and 0", stdout.String(), code)
	}
}

func TestDiffRejectsInvalidInputAndBadUsage(t *testing.T) {
	dir := t.TempDir()
	invalid := filepath.Join(dir, "invalid.yaml")
	if err := os.WriteFile(invalid, []byte("apiVersion: digitalocean.clusterplane.dev/v1\nkind: DigitalOceanKubernetesCluster\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want int
	}{
		{"an invalid NEW is invalid input", []string{"diff", doCluster.Example, invalid}, exitcode.Invalid},
		{"another kind's manifest is invalid input", []string{"diff", doCluster.Example, doPool.Example}, exitcode.Invalid},
		{"a missing file is invalid input", []string{"diff", doCluster.Example, filepath.Join(dir, "missing.yaml")}, exitcode.Invalid},
		{"one file is a usage error", []string{"diff", doCluster.Example}, exitcode.Usage},
		{"three files are a usage error", []string{"diff", doCluster.Example, doCluster.Example, doCluster.Example}, exitcode.Usage},
		{"an unknown format is a usage error", []string{"diff", doCluster.Example, doCluster.Example, "-o", "yaml"}, exitcode.Usage},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := doCluster.Run(c.args, &stdout, &stderr); got != c.want {
				t.Errorf("exit = %d, want %d (stderr %q)", got, c.want, stderr.String())
			}
		})
	}
}

// rotate is a rollout block that allows rotation.
func rotate() *sharedv1.Rollout {
	return &sharedv1.Rollout{Strategy: sharedv1.RolloutStrategy_ROTATE}
}
