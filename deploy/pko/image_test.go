// Package pko_test keeps the workspace image's Dockerfile and program folders true to the
// repository: the image cannot be built where clusterplane is developed (no container runtime), so
// every path and version in it is checked here instead.
package pko_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/deploy/autostack"
	"github.com/clusterplane/clusterplane/pkg/deploy/pko"
	"golang.org/x/mod/modfile"
	"sigs.k8s.io/yaml"
)

const root = "../.."

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// arg is the default of the Dockerfile's ARG name.
func arg(t *testing.T, dockerfile, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^ARG ` + name + `=(\S+)$`).FindStringSubmatch(dockerfile)
	if m == nil {
		t.Fatalf("the Dockerfile has no ARG %s=...", name)
	}
	return m[1]
}

func TestTheWorkspaceImageBuildsWithTheVersionsTheRepositoryPins(t *testing.T) {
	dockerfile := read(t, "deploy/pko/Dockerfile")
	mod, err := modfile.Parse("go.mod", []byte(read(t, "go.mod")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := arg(t, dockerfile, "GO_VERSION"); got != mod.Go.Version {
		t.Errorf("GO_VERSION %s, go.mod says go %s", got, mod.Go.Version)
	}
	if got := arg(t, dockerfile, "PULUMI_VERSION"); got != autostack.MinimumPulumi.String() {
		t.Errorf("PULUMI_VERSION %s, clusterplane needs the Pulumi %s make engine builds", got, autostack.MinimumPulumi)
	}
	// The provider plugins the image installs are the SDK versions the modules are built with:
	// every driver's, so that a cloud added to the drivers is checked here too, never passed over.
	for _, d := range clouds.All() {
		path, plugin := d.ProviderSDK(), string(d.ID())
		var version string
		for _, r := range mod.Require {
			if r.Mod.Path == path {
				version = strings.TrimPrefix(r.Mod.Version, "v")
			}
		}
		if version == "" {
			t.Errorf("go.mod does not require %s, the %s driver's provider SDK", path, plugin)
			continue
		}
		if want := "pulumi plugin install resource " + plugin + " " + version; !strings.Contains(dockerfile, want) {
			t.Errorf("the Dockerfile does not run %q (go.mod requires %s %s)", want, path, version)
		}
	}
	if !strings.Contains(dockerfile, "FROM pulumi/pulumi-go:${PULUMI_VERSION}") {
		t.Error("the image is not Pulumi's own Go image at the pinned version")
	}
}

func TestTheWorkspaceImageHoldsEveryKindsProgramWhereTheExportLooksForIt(t *testing.T) {
	dockerfile := read(t, "deploy/pko/Dockerfile")
	// Every package the image builds is a main package of this repository (./iac/pulumi/...
	// builds every kind's program).
	built := regexp.MustCompile(`(?m)^\s+\./(\S+?)\s*\\?$`).FindAllStringSubmatch(dockerfile, -1)
	var packages []string
	for _, m := range built {
		packages = append(packages, m[1])
	}
	for _, want := range []string{"cmd/clusterplane", "cmd/pulumi-resource-clusterplane", "iac/pulumi/..."} {
		if !slices.Contains(packages, want) {
			t.Errorf("the image does not build ./%s (it builds %v)", want, packages)
		}
	}
	if !strings.Contains(dockerfile, "COPY --from=build /programs/ "+pko.ProgramsDir+"/") {
		t.Errorf("the Dockerfile does not copy the programs to %s, where export pko points the stacks", pko.ProgramsDir)
	}
	if !strings.Contains(dockerfile, "for d in iac/pulumi/*/workspace; do") {
		t.Error("the Dockerfile does not gather each kind's workspace project from iac/pulumi/<kind>/workspace")
	}
	if !strings.Contains(dockerfile, "COPY --from=build /out/ /usr/local/bin/") {
		t.Error("the Dockerfile does not put the binaries in /usr/local/bin, where the programs' Pulumi.yaml look")
	}
	for _, k := range registry.Kinds() {
		if main := read(t, filepath.Join("iac", "pulumi", k.Project, "main.go")); !strings.Contains(main, "package main") {
			t.Errorf("./iac/pulumi/%s is no main package", k.Project)
		}
		var project struct {
			Name    string `json:"name"`
			Runtime struct {
				Name    string `json:"name"`
				Options struct {
					Binary string `json:"binary"`
				} `json:"options"`
			} `json:"runtime"`
		}
		file := filepath.Join("iac", "pulumi", k.Project, "workspace", "Pulumi.yaml")
		if err := yaml.Unmarshal([]byte(read(t, file)), &project); err != nil {
			t.Fatal(err)
		}
		// The project is the kind's, as clusterplane's stacks are: the two take turns on a stack.
		if project.Name != k.Project || project.Runtime.Name != "go" || project.Runtime.Options.Binary != "/usr/local/bin/"+k.Project {
			t.Errorf("%s: %+v, want project %s running /usr/local/bin/%s", file, project, k.Project, k.Project)
		}
	}
}
