package program_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	"github.com/clusterplane/clusterplane/pkg/change/cost"
	civodriver "github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/pulumi/program"
)

var civoProg = program.Program[*civov1.CivoKubernetesClusterStackInput]{
	Name:     "civokubernetescluster",
	NewInput: func() *civov1.CivoKubernetesClusterStackInput { return &civov1.CivoKubernetesClusterStackInput{} },
}

func example(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// replace is text with old replaced once by new; the test fails when text lacks old.
func replace(t *testing.T, text, old, new string) string {
	t.Helper()
	if !strings.Contains(text, old) {
		t.Fatalf("the example has no %q to replace", old)
	}
	return strings.Replace(text, old, new, 1)
}

// Promise: catalogue-warns-and-only-the-cloud-refuses
func TestValidateWarnsOfAKubernetesVersionThePinnedCatalogueLacksAtItsLineWithTheNearestOne(t *testing.T) {
	for _, env := range []string{digitalocean.TokenEnv, digitalocean.APIURLEnv, civodriver.TokenEnv} {
		t.Setenv(env, "") // offline: the pinned table, never an API
	}
	do := example(t, "digitaloceankubernetescluster/minimal.yaml")
	doVersion := func(v string) string {
		return replace(t, do, "kubernetesVersion: 1.31.1-do.5", "kubernetesVersion: "+v+"\n  autoUpgrade: true")
	}
	civo := example(t, "civokubernetescluster/minimal.yaml")
	civoInput := example(t, "civokubernetescluster/minimal.stack-input.yaml")
	talos := example(t, "civokubernetescluster/talos.yaml")
	table := "(" + cost.VersionsSource + ", " + cost.VersionsDate + ")"
	tests := []struct {
		name string
		// civo checks text as a Civo cluster, else as a DigitalOcean one.
		civo bool
		text string
		// warns is the warning, "" for none.
		warns string
	}{
		{name: "a typo in the slug names the pinned slug it is one edit from", text: doVersion("1.31.1-do.6"),
			warns: `f.yaml:16:22: warning: spec.kubernetesVersion: version "1.31.1-do.6" is not in the digitalocean catalogue ` + table +
				": did you mean 1.31.1-do.5? The cloud refuses a version it does not offer"},
		{name: "an unknown minor names the minors the table holds", text: doVersion("1.99.0-do.0"),
			warns: `f.yaml:16:22: warning: spec.kubernetesVersion: version "1.99.0-do.0" is not in the digitalocean catalogue ` + table +
				": it lists no 1.99 version; its minors are 1.30, 1.31, 1.32, 1.33."},
		{name: "a patch far from every pinned one of its minor lists that minor's", text: doVersion("1.31.100-do.0"),
			warns: `: its 1.31 versions are 1.31.1-do.5, 1.31.9-do.0, 1.31.9-do.2.`},
		{name: "a pinned slug is no warning", text: doVersion("1.32.2-do.0")},
		{name: "a minor line is checked by its minor", text: doVersion(`"1.31"`)},
		{name: "a minor line the table lacks warns with the minors", text: doVersion(`"1.35"`),
			warns: `f.yaml:16:22: warning: spec.kubernetesVersion: minor line "1.35" is not in the digitalocean catalogue ` + table +
				": the minors it lists are 1.30, 1.31, 1.32, 1.33."},
		{name: "a Civo k3s typo names the pinned version", civo: true, text: replace(t, civo, "1.30.5-k3s1", "1.31.2-k3s1"),
			warns: `f.yaml:15:22: warning: spec.kubernetesVersion: version "1.31.2-k3s1" is not in the civo catalogue ` + table +
				": did you mean 1.31.1-k3s1?"},
		{name: "a Civo version with its leading v is the pinned one", civo: true, text: replace(t, civo, "1.30.5-k3s1", "v1.30.5-k3s1")},
		{name: "a Civo talos version is looked for among talos' own", civo: true, text: replace(t, talos, "kubernetesVersion: talos-v1.5.0", "kubernetesVersion: talos-v1.7.9"),
			warns: `: version "talos-v1.7.9" is not in the civo catalogue ` + table + ": did you mean talos-v1.7.6?"},
		{name: "a stack input's warning names the path it writes", civo: true, text: replace(t, civoInput, "1.30.5-k3s1", "1.29.9-k3s1"),
			warns: `f.yaml:19:24: warning: target.spec.kubernetesVersion: version "1.29.9-k3s1" is not in the civo catalogue`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check := prog.Check
			if tt.civo {
				check = civoProg.Check
			}
			v := check("f.yaml", []byte(tt.text))
			if v.Err != nil {
				t.Fatalf("the manifest is invalid: %v", v.Err)
			}
			var versions []string
			for _, w := range v.Warnings {
				if strings.HasSuffix(w.Path, "spec.kubernetesVersion") && w.RuleID == "catalogue.version" && w.Line > 0 {
					versions = append(versions, w.Text)
				}
			}
			switch {
			case tt.warns == "" && len(versions) > 0:
				t.Errorf("warnings %q, want none", versions)
			case tt.warns != "" && (len(versions) != 1 || !strings.Contains(versions[0], tt.warns)):
				t.Errorf("warnings %q, want one holding %q", versions, tt.warns)
			}
		})
	}
}

func TestASizeWarningNamesItsFieldsLineAndTheSizeItWasOneEditFrom(t *testing.T) {
	t.Setenv(digitalocean.TokenEnv, "") // offline: the price table
	tests := []struct{ name, typed string }{
		{"a letter too many", "s-2vcpu-4gbb"},
		{"two neighbouring letters swapped", "s-2vpcu-4gb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := replace(t, example(t, "digitaloceankubernetescluster/minimal.yaml"), "size: s-2vcpu-4gb", "size: "+tt.typed)
			v := prog.Check("f.yaml", []byte(text))
			want := `f.yaml:18:11: warning: spec.defaultNodePool.size: size "` + tt.typed + `" is not in the digitalocean catalogue (` +
				cost.TableSource + ", " + cost.TableDate + "): check its spelling (did you mean s-2vcpu-4gb?)"
			if v.Err != nil || len(v.Warnings) != 1 || !strings.HasPrefix(v.Warnings[0].Text, want) {
				t.Errorf("warnings %q (%v), want one starting %q", v.Warnings, v.Err, want)
			}
		})
	}
}

func TestAWarningInJSONSaysItsPlaceFieldAndRuleAsAProblemDoes(t *testing.T) {
	t.Setenv(digitalocean.TokenEnv, "") // offline: the price table
	text := replace(t, example(t, "digitaloceankubernetescluster/minimal.yaml"), "size: s-2vcpu-4gb", "size: s-2vpcu-4gb")
	data, err := json.Marshal(prog.Check("f.yaml", []byte(text)))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Warnings []map[string]any `json:"warnings"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"file": "f.yaml", "line": 18.0, "column": 11.0, "path": "spec.defaultNodePool.size", "ruleId": "catalogue.size"}
	if len(got.Warnings) != 1 {
		t.Fatalf("warnings %s, want one", data)
	}
	for k, v := range want {
		if got.Warnings[0][k] != v {
			t.Errorf("warning's %s = %v, want %v: %s", k, got.Warnings[0][k], v, data)
		}
	}
	if text, _ := got.Warnings[0]["text"].(string); !strings.HasPrefix(text, "f.yaml:18:11: warning: spec.defaultNodePool.size: ") {
		t.Errorf("warning's text = %q, want the line validate prints", text)
	}
}
