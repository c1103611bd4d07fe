package stackinput_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/pkg/errors"
)

func TestReadHeadFindsTheKindOfAManifestOrAStackInput(t *testing.T) {
	tests := []struct {
		name, text string
		want       stackinput.Head
		claimed    bool
	}{
		{"a manifest", "apiVersion: civo.clusterplane.dev/v1\nkind: CivoKubernetesCluster\nspec: {}\n",
			stackinput.Head{APIVersion: "civo.clusterplane.dev/v1", Kind: "CivoKubernetesCluster"}, true},
		{"a manifest in JSON with snake_case", `{"api_version": "digitalocean.clusterplane.dev/v1", "kind": "DigitalOceanKubernetesNodePool"}`,
			stackinput.Head{APIVersion: "digitalocean.clusterplane.dev/v1", Kind: "DigitalOceanKubernetesNodePool"}, true},
		{"a stack input", "target:\n  kind: CivoKubernetesNodePool\nproviderConfig: {}\n",
			stackinput.Head{Kind: "CivoKubernetesNodePool", StackInput: true}, true},
		{"a stack input without a target", "provider_config: {}\n", stackinput.Head{StackInput: true}, true},
		{"the Karpenter provider's NodeClass", "apiVersion: karpenter.clusterplane.dev/v1\nkind: DigitalOceanNodeClass\n",
			stackinput.Head{APIVersion: "karpenter.clusterplane.dev/v1", Kind: "DigitalOceanNodeClass"}, false},
		{"a Pulumi project", "name: x\nruntime: go\n", stackinput.Head{}, false},
		{"a Kubernetes manifest", "apiVersion: v1\nkind: Pod\n", stackinput.Head{APIVersion: "v1", Kind: "Pod"}, false},
		{"a kind that is no string", "kind: [a]\n", stackinput.Head{}, false},
	}
	for _, tt := range tests {
		got, err := stackinput.ReadHead([]byte(tt.text))
		if err != nil || got != tt.want || got.Claimed() != tt.claimed {
			t.Errorf("%s: ReadHead = %+v (claimed %t), %v; want %+v (claimed %t)", tt.name, got, got.Claimed(), err, tt.want, tt.claimed)
		}
	}
}

func TestReadHeadRejectsWhatIsNoMapping(t *testing.T) {
	for _, text := range []string{"", "- a\n- b\n", "just text\n"} {
		if _, err := stackinput.ReadHead([]byte(text)); !errors.Is(err, stackinput.ErrNotAMapping) {
			t.Errorf("ReadHead(%q) = %v, want ErrNotAMapping", text, err)
		}
	}
	if _, err := stackinput.ReadHead([]byte("a: [\n")); err == nil || errors.Is(err, stackinput.ErrNotAMapping) {
		t.Errorf("ReadHead of broken YAML = %v, want a parse error", err)
	}
}

func TestQuoteEscapesControlCharactersAndCutsLongValues(t *testing.T) {
	long := strings.Repeat("K", 10000)
	tests := []struct{ name, in, want string }{
		{"a plain value", "CivoKubernetesCluster", `"CivoKubernetesCluster"`},
		{"terminal escapes", "Evil\x1b[2J\x1b]0;pwned\x07", `"Evil\x1b[2J\x1b]0;pwned\a"`},
		{"exactly the limit", long[:stackinput.MaxQuoted], `"` + long[:stackinput.MaxQuoted] + `"`},
		{"a huge value", long, `"` + long[:stackinput.MaxQuoted] + `"… (10000 bytes)`},
		{"many-byte characters cut whole", strings.Repeat("é", 100), `"` + strings.Repeat("é", stackinput.MaxQuoted) + `"… (200 bytes)`},
		{"invalid UTF-8", "\xff\xfe", `"\xff\xfe"`},
	}
	for _, tt := range tests {
		if got := stackinput.Quote(tt.in); got != tt.want {
			t.Errorf("%s: Quote = %s, want %s", tt.name, got, tt.want)
		}
	}
}

// A NodeClass sits in the folders of the clusters it scales; the folder walk skips it only while
// its group, as the Karpenter module declares it, is among OtherGroups.
func TestTheKarpenterProvidersGroupIsOneTheFolderWalkSkips(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "karpenter", "pkg", "apis", "v1", "doc.go"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^const Group = "([^"]+)"`).FindSubmatch(src)
	if m == nil {
		t.Fatal("karpenter/pkg/apis/v1/doc.go declares no const Group")
	}
	if !slices.Contains(stackinput.OtherGroups, string(m[1])) {
		t.Errorf("OtherGroups %v lacks the NodeClasses' group %s: `clusterplane up DIR` would refuse a NodeClass as an unknown kind", stackinput.OtherGroups, m[1])
	}
}
