//go:build e2e

package e2e_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// karpenterNodeClassCRDs are the provider's NodeClass CRDs, as its chart installs them.
func karpenterNodeClassCRDs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "karpenter", "chart", "crds", "karpenter.clusterplane.dev_*.yaml"))
	if err != nil || len(files) != 2 {
		t.Fatalf("want the two NodeClass CRDs in karpenter/chart/crds, found %q (%v)", files, err)
	}
	return files
}

// The NodeClass CRDs on a real API server, which compiles and runs their CEL rules as the
// provider's unit tests cannot: both kinds are established next to Karpenter core's, a valid
// NodeClass of each is stored, and each rule refuses what it is there to refuse, with its message.
func TestTheNodeClassCRDsValidateOnARealAPIServer(t *testing.T) {
	t.Parallel() // mostly waiting on Karpenter's and the clouds' timers: beside the others, not after them
	k := newKube(t)
	k.installCRDs(append(karpenterCoreCRDs(t), karpenterNodeClassCRDs(t)...))
	cases := []nodeClassCase{
		{"a class naming its cluster by id is stored",
			map[string]any{"cluster": map[string]any{"id": "c1"}}, ""},
		{"a class naming its cluster by name, with size terms, labels and taints, is stored",
			map[string]any{"cluster": map[string]any{"name": "web"},
				"sizeSelectorTerms": []any{map[string]any{"families": []any{"s"}}, map[string]any{"names": []any{"c-4"}}},
				"labels":            map[string]any{"team": "web"},
				"taints":            []any{map[string]any{"key": "k", "value": "v", "effect": "NoSchedule"}}}, ""},
		{"a class naming its cluster both by id and by name is refused",
			map[string]any{"cluster": map[string]any{"id": "c1", "name": "web"}}, "give exactly one of id and name"},
		{"a class naming no cluster is refused",
			map[string]any{"cluster": map[string]any{}}, "give exactly one of id and name"},
		{"a label under karpenter.sh/ is refused",
			map[string]any{"cluster": map[string]any{"id": "c1"}, "labels": map[string]any{"karpenter.sh/nodepool": "x"}}, "are Karpenter's and the provider's"},
		{"an empty size term is refused",
			map[string]any{"cluster": map[string]any{"id": "c1"}, "sizeSelectorTerms": []any{map[string]any{}}}, "a term sets names, families or tags"},
	}
	tryNodeClasses(t, k, "class", cases)
}

// nodeClassCase is a NodeClass spec written to the API server, and the refusal it must meet.
type nodeClassCase struct {
	name    string
	spec    map[string]any
	refusal string // empty: stored
}

// tryNodeClasses writes each case's spec as a NodeClass of each kind, with strict field
// validation, named prefix-a, prefix-b and so on, and checks that it is stored or refused with
// its message.
func tryNodeClasses(t *testing.T, k *kube, prefix string, cases []nodeClassCase) {
	t.Helper()
	kinds := []struct{ kind, plural string }{{"DigitalOceanNodeClass", "digitaloceannodeclasses"}, {"CivoNodeClass", "civonodeclasses"}}
	for _, kind := range kinds {
		for i, c := range cases {
			t.Run(kind.kind+": "+c.name, func(t *testing.T) {
				obj := map[string]any{"apiVersion": "karpenter.clusterplane.dev/v1", "kind": kind.kind,
					"metadata": map[string]any{"name": prefix + "-" + string(rune('a'+i))}, "spec": c.spec}
				code, body := k.try("POST", "/apis/karpenter.clusterplane.dev/v1/"+kind.plural+"?fieldValidation=Strict", obj)
				switch {
				case c.refusal == "" && code != http.StatusCreated:
					t.Errorf("refused (%d): %s", code, body)
				case c.refusal != "" && (code != http.StatusUnprocessableEntity || !strings.Contains(string(body), c.refusal)):
					t.Errorf("answered %d %s, want 422 saying %q", code, body, c.refusal)
				}
			})
		}
	}
}
