package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The plugin is started by the engine for every program that uses a component: it links the
// kinds and the plugin side only, never the command line or the deploy library. Cobra itself is
// linked through Pulumi's own SDK (sdk/v3/go/pulumi imports common/util/cmdutil), which no
// plugin can avoid; none of this repository's packages may bring it.
func TestThePluginLinksNeitherTheCommandLineNorTheDeployLibrary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const ours = "github.com/clusterplane/clusterplane/"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		switch pkg {
		case ours + "pkg/cli", ours + "pkg/deploy", ours + "pkg/deploy/autostack":
			t.Errorf("the plugin links %s", pkg)
		}
		if strings.HasPrefix(pkg, ours) && strings.Contains(" "+imports+" ", " github.com/spf13/cobra ") {
			t.Errorf("%s, linked into the plugin, imports cobra", pkg)
		}
	}
}
