package examples_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/release"
)

// Issue 33 item 9: with the plugin a clone builds on PATH, the engine warns "using
// pulumi-resource-clusterplane from $PATH" each time it loads it (six times, and six more in the
// stack's diagnostics, in one preview of the YAML example). Installed with `pulumi plugin install
// --file`, it is found without a warning, so that is what the pages that run the plugin from a
// clone say.
func TestThePagesInstallAClonesPluginWhereTheEngineFindsItWithoutAWarning(t *testing.T) {
	install := regexp.MustCompile(`pulumi plugin install resource clusterplane (\S+) --file bin/pulumi-resource-clusterplane`)
	onPath := regexp.MustCompile(`(?i)(export PATH=.*bin|go install \./cmd/pulumi-resource-clusterplane|plugin must be\s+(#\s*)?on the PATH)`)
	pages := []string{filepath.Join(root, "docs", "sdks.md"), filepath.Join("typescript", "README.md"), filepath.Join("pulumi-yaml", "Pulumi.yaml")}
	for _, page := range pages {
		t.Run(filepath.ToSlash(page), func(t *testing.T) {
			text := readFile(t, page)
			m := install.FindStringSubmatch(strings.Join(strings.Fields(strings.ReplaceAll(text, "#", "")), " "))
			switch {
			case m == nil:
				t.Errorf("%s does not install the plugin with pulumi plugin install ... --file", page)
			case m[1] != release.Version():
				t.Errorf("%s installs the plugin as %s; a clone builds %s", page, m[1], release.Version())
			}
			if where := onPath.FindString(text); where != "" {
				t.Errorf("%s still puts the plugin on PATH (%q), where the engine warns at every load", page, where)
			}
		})
	}
}
