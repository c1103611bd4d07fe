//go:build linux || darwin

package providerscheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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

func TestProvidersGetsThePluginsTheWayAUserDoesWithoutTheSources(t *testing.T) {
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
			want:    []string{"installing the plugins with pulumi plugin install"},
			plugins: []string{"pulumi-resource-civo", "pulumi-resource-digitalocean"}},
		{name: "with no way to the internet it fails naming both ways", pulumi: offline, fails: true,
			want: []string{"could not get pulumi-resource-digitalocean 4.57.0 pulumi-resource-civo 2.4.8",
				"`pulumi plugin install resource digitalocean 4.57.0`", "`pulumi plugin install resource civo 2.4.8`",
				"../shared/providers-src"}},
		{name: "a plugin already in place is kept and the other still named", pulumi: offline, fails: true,
			kept:    []string{"pulumi-resource-digitalocean"},
			want:    []string{"pulumi-resource-digitalocean: kept", "could not get pulumi-resource-civo 2.4.8"},
			plugins: []string{"pulumi-resource-digitalocean"}},
		{name: "both plugins in place need nothing downloaded", pulumi: offline,
			kept:    []string{"pulumi-resource-civo", "pulumi-resource-digitalocean"},
			plugins: []string{"pulumi-resource-civo", "pulumi-resource-digitalocean"}},
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
