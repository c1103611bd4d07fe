//go:build e2e

package e2e_test

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// karpenterDocCollections are where the kinds the Karpenter docs and examples show are created;
// all are cluster-scoped.
var karpenterDocCollections = map[string]string{
	"DigitalOceanNodeClass": "/apis/karpenter.clusterplane.dev/v1/digitaloceannodeclasses",
	"CivoNodeClass":         "/apis/karpenter.clusterplane.dev/v1/civonodeclasses",
	"NodePool":              "/apis/karpenter.sh/v1/nodepools",
}

// yamlBlock is a fenced yaml block of a Markdown page.
var yamlBlock = regexp.MustCompile("(?ms)^```yaml\n(.*?)^```")

// karpenterDocExamples are every YAML document that docs/karpenter.md and karpenter/examples show
// a user, by where it comes from.
func karpenterDocExamples(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	page, err := os.ReadFile(filepath.Join(root, "docs", "karpenter.md"))
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range yamlBlock.FindAllSubmatchIndex(page, -1) {
		// The chart's values example is no Kubernetes object: karpenter/chart/charttest renders it.
		if bytes.HasSuffix(bytes.TrimSpace(page[:m[0]]), []byte("<!-- karpenter-install: values -->")) {
			continue
		}
		out["docs/karpenter.md block "+string(rune('1'+i))] = page[m[2]:m[3]]
	}
	files, err := filepath.Glob(filepath.Join(root, "karpenter", "examples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples in karpenter/examples (%v)", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out["karpenter/examples/"+filepath.Base(f)] = data
	}
	if len(out) < 4 {
		t.Fatalf("found only %d example sources, want the docs' two blocks and the two examples", len(out))
	}
	return out
}

// Every NodeClass and NodePool the docs and examples show is stored by a real API server with
// the chart's CRDs (Karpenter core's and the provider's), under strict field validation: an
// example a user copies must not be refused, as the docs' NodePools once were for want of
// spec.template.spec.requirements.
func TestTheKarpenterDocsExamplesAreAcceptedByTheChartsCRDs(t *testing.T) {
	t.Parallel()
	crds, err := filepath.Glob(filepath.Join(root, "karpenter", "chart", "crds", "*.yaml"))
	if err != nil || len(crds) == 0 {
		t.Fatalf("no CRDs in karpenter/chart/crds (%v)", err)
	}
	k := newKube(t)
	k.installCRDs(crds)
	for source, data := range karpenterDocExamples(t) {
		t.Run(source, func(t *testing.T) {
			for _, o := range yamlObjects(t, data) {
				kind, _ := o["kind"].(string)
				name, _ := o["metadata"].(map[string]any)["name"].(string)
				path, ok := karpenterDocCollections[kind]
				if !ok {
					t.Fatalf("%s shows a %s, which this test does not know where to create", source, kind)
				}
				code, body := k.try("POST", path+"?fieldValidation=Strict", o)
				if code != http.StatusCreated {
					t.Errorf("%s %s refused (%d): %s", kind, name, code, body)
					continue
				}
				// Sources reuse names (two NodePools "batch"): each is removed once stored.
				if code, body := k.try("DELETE", path+"/"+name, nil); code != http.StatusOK {
					t.Errorf("delete %s %s: %d %s", kind, name, code, body)
				}
			}
		})
	}
}
