//go:build linux || darwin

package providerscheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
)

// A stand-in pulumi CLI: `plugin install resource NAME VERSION` lays the plugin out in PULUMI_HOME
// as the real one does, or fails as the real one does offline.
const (
	installs = `#!/bin/sh
[ "$1 $2 $3" = "plugin install resource" ] || exit 2
dir="$PULUMI_HOME/plugins/resource-$4-v$5"
mkdir -p "$dir" && printf 'plugin %s %s\n' "$4" "$5" > "$dir/pulumi-resource-$4" && chmod +x "$dir/pulumi-resource-$4"
`
	offline = `#!/bin/sh
echo "error: [resource plugin $4-$5] downloading from : failed to download plugin: $4-$5: failed all 5 attempts" >&2
exit 255
`
)

// Promise: providers-script-exits-one-naming-both-ways
func TestProvidersGetsThePluginsTheWayAUserDoesWithoutTheSources(t *testing.T) {
	// Every driver's plugin, at the version its SDK is pinned at, so that a cloud added to the
	// drivers is asked of providers.sh here too: pulumi-resource-civo 2.4.8 and
	// pulumi-resource-digitalocean 4.57.0 for the two clouds.
	var plugins, named, installed []string
	for _, d := range clouds.All() {
		id, version := string(d.ID()), d.ProviderSDKVersion()
		plugins = append(plugins, "pulumi-resource-"+id)
		named = append(named, "pulumi-resource-"+id+" "+version)
		installed = append(installed, "`pulumi plugin install resource "+id+" "+version+"`")
	}
	sort.Strings(plugins)
	// The kept plugin is DigitalOcean's; every other is still named as missing.
	kept := "pulumi-resource-digitalocean"
	var others []string
	for _, n := range named {
		if !strings.HasPrefix(n, kept+" ") {
			others = append(others, n)
		}
	}
	tests := []struct {
		name string
		// pulumi is the stand-in CLI; kept, plugins already in .engine/plugins.
		pulumi string
		kept   []string
		// fails: the script must exit non-zero; want, what its output says; plugins, what
		// .engine/plugins holds after it.
		fails   bool
		want    []string
		plugins []string
	}{
		{name: "the plugins are installed with pulumi plugin install and copied in", pulumi: installs,
			want:    []string{"the plugins come from your Pulumi home or pulumi plugin install"},
			plugins: plugins},
		{name: "with no way to the internet it fails naming every way", pulumi: offline, fails: true,
			want: slices.Concat([]string{"could not get pulumi-resource-", "../shared/providers-src", "already in your Pulumi home", "resource-civo-v2.4.8/pulumi-resource-civo"}, named, installed)},
		{name: "a plugin already in place is kept and the other still named", pulumi: offline, fails: true,
			kept:    []string{kept},
			want:    slices.Concat([]string{kept + ": kept", "could not get pulumi-resource-"}, others),
			plugins: []string{kept}},
		{name: "every plugin in place needs nothing downloaded", pulumi: offline,
			kept:    plugins,
			plugins: plugins},
	}
	script, err := filepath.Abs("../engine/providers.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A clone's layout: the script at tools/engine, the engine's CLI at .engine/bin.
			root := t.TempDir()
			write(t, filepath.Join(root, "tools", "engine", "providers.sh"), read(t, script), 0o755)
			write(t, filepath.Join(root, ".engine", "bin", "pulumi"), tt.pulumi, 0o755)
			for _, p := range tt.kept {
				write(t, filepath.Join(root, ".engine", "plugins", p), "kept\n", 0o755)
			}
			cmd := exec.Command("bash", filepath.Join(root, "tools", "engine", "providers.sh"))
			cmd.Env = append(os.Environ(), "CLUSTERPLANE_PROVIDERS_SRC="+filepath.Join(root, "no-such-folder"))
			out, err := cmd.CombinedOutput()
			if tt.fails != (err != nil) {
				t.Fatalf("providers.sh: %v, want failing %v:\n%s", err, tt.fails, out)
			}
			if code := cmd.ProcessState.ExitCode(); tt.fails && code != 1 {
				t.Errorf("providers.sh exited %d, want 1 (docs/contributing.md):\n%s", code, out)
			}
			for _, s := range tt.want {
				if !strings.Contains(string(out), s) {
					t.Errorf("the output does not say %q:\n%s", s, out)
				}
			}
			entries, _ := os.ReadDir(filepath.Join(root, ".engine", "plugins"))
			var got []string
			for _, e := range entries {
				got = append(got, e.Name())
			}
			if strings.Join(got, " ") != strings.Join(tt.plugins, " ") {
				t.Errorf(".engine/plugins holds %v, want %v", got, tt.plugins)
			}
			for _, p := range tt.kept {
				if read(t, filepath.Join(root, ".engine", "plugins", p)) != "kept\n" {
					t.Errorf("%s was replaced", p)
				}
			}
		})
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func write(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}
