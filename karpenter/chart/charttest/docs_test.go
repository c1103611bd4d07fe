package charttest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The install steps of docs/karpenter.md create the Secret the chart reads, by its name and its
// keys: a reader who follows them gets a token into the operator, not a Secret nobody reads.
func TestTheDocsCreateTheSecretTheChartReads(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "karpenter.md"))
	if err != nil {
		t.Fatal(err)
	}
	created := regexp.MustCompile(`create secret generic (\S+)`).FindStringSubmatch(string(doc))
	if created == nil {
		t.Fatal("docs/karpenter.md creates no Secret")
	}
	var keys []string
	for _, m := range regexp.MustCompile(`--from-literal=(\w+)=|(\w+)="\$\w+_TOKEN"`).FindAllStringSubmatch(string(doc), -1) {
		keys = append(keys, m[1]+m[2])
	}
	e := env(t, render(t, nil))
	for _, token := range []string{"DIGITALOCEAN_TOKEN", "CIVO_TOKEN"} {
		ref, _ := e[token].(map[string]any)["secretKeyRef"].(map[string]any)
		if ref == nil {
			t.Fatalf("the Deployment reads %s from no Secret: %v", token, e[token])
		}
		if ref["name"] != created[1] {
			t.Errorf("%s comes from Secret %v; the docs create %s", token, ref["name"], created[1])
		}
		if !strings.Contains(strings.Join(keys, " "), fmt.Sprint(ref["key"])) {
			t.Errorf("%s comes from key %v; the docs write the keys %v", token, ref["key"], keys)
		}
	}
}
