package program_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/module"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/pulumi/program"
	"github.com/pkg/errors"
)

var prog = program.Program[*v1.DigitalOceanKubernetesClusterStackInput]{
	Name: "digitaloceankubernetescluster",
	NewInput: func() *v1.DigitalOceanKubernetesClusterStackInput {
		return &v1.DigitalOceanKubernetesClusterStackInput{}
	},
	Resources: module.Resources,
}

var minimal = filepath.Join("..", "..", "..", "examples", "digitaloceankubernetescluster", "minimal.yaml")

// invalidManifest has four mistakes: a metadata name that is no DNS label, no region, a version
// that is no slug and a reserved tag.
const invalidManifest = `apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesCluster
metadata:
  name: Not_A_Label
spec:
  clusterName: dev-fra1
  kubernetesVersion: latest
  defaultNodePool:
    size: s-2vcpu-4gb
    nodeCount: 2
  tags: [k8s]
`

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestStartedByPulumiWhenTheLanguageHostSetTheEngineAddresses(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, false},
		{map[string]string{"PULUMI_PROJECT": "p", "PULUMI_STACK": "s"}, false},
		{map[string]string{"PULUMI_MONITOR": "127.0.0.1:1234"}, true},
		{map[string]string{"PULUMI_ENGINE": "127.0.0.1:1234"}, true},
		{map[string]string{"PULUMI_PLUGINS": "true"}, true},
		{map[string]string{"PULUMI_PLUGINS": "false"}, false},
	}
	for _, tt := range tests {
		if got := program.StartedByPulumi(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("StartedByPulumi(%v) = %t, want %t", tt.env, got, tt.want)
		}
	}
}

func TestKindIsTheNameOfTheStackInputsTarget(t *testing.T) {
	if got := prog.Kind(); got != "DigitalOceanKubernetesCluster" {
		t.Errorf("Kind() = %q", got)
	}
}

func TestCheckJudgesAFileAndItsVerdictWritesJSON(t *testing.T) {
	valid, err := os.ReadFile(minimal)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, text, status string
		want               []string
	}{
		{"valid.yaml", string(valid), "valid", []string{`"file":"valid.yaml"`, `"kind":"DigitalOceanKubernetesCluster"`, `"status":"valid"`}},
		{"invalid.yaml", invalidManifest, "invalid", []string{`"status":"invalid"`,
			`{"file":"invalid.yaml","line":11,"column":10,"path":"spec.tags[0]","ruleId":"tag.not_reserved","message":"must not be k8s or start with k8s: or terraform:, which the provider manages"}`}},
		{"unknown.yaml", string(valid) + "extra: 1\n", "invalid", []string{`"path":"extra","ruleId":"field.unknown","message":"unknown field"`}},
	}
	for _, tt := range tests {
		v := prog.Check(tt.name, []byte(tt.text))
		if v.Status() != tt.status || v.Valid() != (tt.status == "valid") {
			t.Errorf("%s: status %s, want %s (%v)", tt.name, v.Status(), tt.status, v.Err)
		}
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range tt.want {
			if !strings.Contains(string(data), want) {
				t.Errorf("%s: JSON %s lacks %s", tt.name, data, want)
			}
		}
	}
	skipped, err := json.Marshal(program.Verdict{File: "Pulumi.yaml", Skipped: "not a manifest"})
	if err != nil || string(skipped) != `{"file":"Pulumi.yaml","status":"skipped","reason":"not a manifest","problems":[]}` {
		t.Errorf("skipped verdict JSON = %s, %v", skipped, err)
	}
	if v := (program.Verdict{File: "x", Err: errors.New("boom")}); v.Status() != "invalid" {
		t.Errorf("a verdict with an error is %s", v.Status())
	}
}

// Promise: stack-input-bounds
func TestReadReadsFilesAndStandardInputUpToALimit(t *testing.T) {
	data, err := stackinput.ReadFrom(stackinput.Stdin, strings.NewReader("kind: x\n"))
	if err != nil || string(data) != "kind: x\n" {
		t.Errorf("Read(-) = %q, %v", data, err)
	}
	big := strings.NewReader(strings.Repeat("a", stackinput.MaxBytes+1))
	if _, err := stackinput.ReadFrom(stackinput.Stdin, big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("Read of a too large input = %v, want an error", err)
	}
	path := writeFile(t, "m.yaml", "kind: y\n")
	if data, err := stackinput.ReadFrom(path, nil); err != nil || string(data) != "kind: y\n" {
		t.Errorf("Read(%s) = %q, %v", path, data, err)
	}
	missing := filepath.Join(t.TempDir(), "missing.yaml")
	if _, err := stackinput.ReadFrom(missing, nil); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("Read of a missing file = %v, want an error naming it", err)
	}
}
