package programinput_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cluster "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/clusterplane/clusterplane/pkg/pulumi/programinput"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// target is a valid DigitalOceanKubernetesCluster manifest whose cluster is named name, so that
// each source of a stack input can be told apart, with nodeCount nodes in its default pool.
func target(name string, nodeCount int) map[string]any {
	return map[string]any{
		"apiVersion": "digitalocean.clusterplane.dev/v1",
		"kind":       "DigitalOceanKubernetesCluster",
		"metadata":   map[string]any{"name": name},
		"spec": map[string]any{
			"clusterName":       name,
			"region":            "fra1",
			"kubernetesVersion": "1.31.1-do.5",
			"defaultNodePool":   map[string]any{"size": "s-2vcpu-4gb", "nodeCount": nodeCount},
		},
	}
}

// manifest is target(name, 2) as JSON, which every YAML reader takes too.
func manifest(t *testing.T, name string) string {
	return jsonOf(t, target(name, 2))
}

// stackInput is a stack input whose target is manifest(name), with an empty providerConfig.
func stackInput(t *testing.T, name string) string {
	return jsonOf(t, map[string]any{"target": target(name, 2), "providerConfig": map[string]any{}})
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// load runs programinput.Load inside a mocked Pulumi program with config and returns the input.
func load(t *testing.T, config map[string]string) (*cluster.DigitalOceanKubernetesClusterStackInput, error) {
	t.Helper()
	input := &cluster.DigitalOceanKubernetesClusterStackInput{}
	var loadErr error
	if _, err := mockrun.Run(func(ctx *pulumi.Context) error {
		loadErr = programinput.Load(ctx, input)
		return nil
	}, mockrun.Options{Config: config}); err != nil {
		t.Fatalf("mockrun.Run: %v", err)
	}
	return input, loadErr
}

// sources prepares a working directory and environment with stack inputs in the sources named.
func sources(t *testing.T, withEnv bool, files ...string) {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv(stackinput.FileEnv, "")
	for _, file := range files {
		write(t, filepath.Join(dir, file), stackInput(t, "from-"+strings.ReplaceAll(file, ".", "-")))
	}
	if withEnv {
		path := filepath.Join(t.TempDir(), "named.yaml")
		write(t, path, manifest(t, "from-env"))
		t.Setenv(stackinput.FileEnv, path)
	}
}

var configKey = mockrun.Project + ":" + programinput.ConfigKey

func TestLoadTakesTheFirstSourceThatIsSet(t *testing.T) {
	tests := []struct {
		name     string
		config   bool
		env      bool
		files    []string
		wantName string
	}{
		{"the config key wins over the env file and the working directory", true, true,
			[]string{"stack-input.json", "stack-input.yaml"}, "from-config"},
		{"the env file wins over the working directory", false, true,
			[]string{"stack-input.json", "stack-input.yaml"}, "from-env"},
		{"stack-input.json is read from the working directory", false, false,
			[]string{"stack-input.json"}, "from-stack-input-json"},
		{"stack-input.json wins over stack-input.yaml", false, false,
			[]string{"stack-input.yaml", "stack-input.json"}, "from-stack-input-json"},
		{"stack-input.yaml is read from the working directory", false, false,
			[]string{"stack-input.yaml"}, "from-stack-input-yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sources(t, tt.env, tt.files...)
			var config map[string]string
			if tt.config {
				config = map[string]string{configKey: manifest(t, "from-config")}
			}
			input, err := load(t, config)
			if err != nil {
				t.Fatalf("Load() = %v", err)
			}
			if got := input.GetTarget().GetMetadata().GetName(); got != tt.wantName {
				t.Errorf("loaded the manifest named %q, want %q", got, tt.wantName)
			}
		})
	}
}

func TestLoadWithoutAnySourceNamesAllThree(t *testing.T) {
	sources(t, false)
	_, err := load(t, nil)
	if err == nil {
		t.Fatal("Load() succeeded with no stack input anywhere")
	}
	for _, want := range []string{programinput.ConfigKey, stackinput.FileEnv, "stack-input.json", "stack-input.yaml"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

func TestLoadValidatesWhatItReads(t *testing.T) {
	sources(t, false)
	_, err := load(t, map[string]string{configKey: jsonOf(t, target("from-config", 0))})
	if err == nil {
		t.Fatal("Load() accepted an invalid manifest from config")
	}
	if !strings.Contains(err.Error(), "spec.defaultNodePool") {
		t.Errorf("error %q does not name the invalid field", err)
	}
	if !strings.Contains(err.Error(), "config "+programinput.ConfigKey) {
		t.Errorf("error %q does not say the input came from config %s", err, programinput.ConfigKey)
	}
}

func TestLoadFromAMissingEnvFileFailsInsteadOfFallingBack(t *testing.T) {
	sources(t, false, "stack-input.yaml")
	t.Setenv(stackinput.FileEnv, filepath.Join(t.TempDir(), "missing.yaml"))
	if _, err := load(t, nil); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("Load() = %v, want an error naming missing.yaml", err)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
