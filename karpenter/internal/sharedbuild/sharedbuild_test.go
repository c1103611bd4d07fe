// Package sharedbuild holds one rule of the repository's build: the main module, the provider's
// module and controller-gen's tools module choose the same versions of the Kubernetes modules
// they all use. Go compiles a package once per version, so a version apart compiles the
// Kubernetes client libraries two or three times over in a cold CI run (minutes on two cores).
package sharedbuild

import (
	"bufio"
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// compiled are the modules whose packages a module's build and tests compile, with the version
// of each it selects. Only those count: a module a go.mod lists but no package imports costs
// nothing to build.
func compiled(t *testing.T, dir string, patterns ...string) map[string]string {
	t.Helper()
	args := append([]string{"list", "-tags", "e2e", "-deps", "-test", "-f",
		"{{with .Module}}{{.Path}} {{.Version}}{{end}}"}, patterns...)
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list the packages of %s: %v", dir, err)
	}
	versions := map[string]string{}
	scanner := bufio.NewScanner(bytes.NewReader(out))
	for scanner.Scan() {
		if fields := strings.Fields(scanner.Text()); len(fields) >= 2 {
			versions[fields[0]] = fields[1]
		}
	}
	return versions
}

// kubernetes says whether a module is one of the Kubernetes project's libraries: the large
// ones every module here compiles.
func kubernetes(module string) bool {
	return strings.HasPrefix(module, "k8s.io/") || strings.HasPrefix(module, "sigs.k8s.io/")
}

func TestTheModulesBuildTheKubernetesLibrariesAtTheProvidersVersions(t *testing.T) {
	provider := compiled(t, filepath.Join("..", ".."), "./...")
	for _, other := range []struct{ name, dir, packages string }{
		{"the main module", filepath.Join("..", "..", ".."), "./..."},
		{"controller-gen's tools module", filepath.Join("..", "..", "tools", "controllergen"),
			"sigs.k8s.io/controller-tools/cmd/controller-gen"},
	} {
		t.Run(other.name, func(t *testing.T) {
			for module, version := range compiled(t, other.dir, other.packages) {
				want, shared := provider[module]
				if shared && kubernetes(module) && version != want {
					t.Errorf("%s builds %s %s, the provider's module %s: set it to %s in %s/go.mod, "+
						"or the cold build compiles it twice", other.name, module, version, want, want, other.dir)
				}
			}
		})
	}
}
