package registry_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
)

func TestEveryKindIsListedOnceWithItsProgramComponentAndEffects(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range registry.Kinds() {
		if seen[k.Name] {
			t.Errorf("%s is listed twice", k.Name)
		}
		seen[k.Name] = true
		if k.Program != strings.ToLower(k.Name) {
			t.Errorf("%s: program %q, want %q", k.Name, k.Program, strings.ToLower(k.Name))
		}
		if registry.Kinds().Table(k.Name) == nil || registry.Kinds().Table(k.Name).Types["component"] != k.Component.Token {
			t.Errorf("%s: component %q does not match the effects table", k.Name, k.Component.Token)
		}
		if got, ok := registry.Kinds().ByName(k.Name); !ok || got.Program != k.Program {
			t.Errorf("ByName(%s) = %v, %t", k.Name, got.Program, ok)
		}
	}
	if len(seen) != 4 {
		t.Errorf("%d kinds, want the four", len(seen))
	}
}

func TestNothingUnderPkgImportsTheModules(t *testing.T) {
	err := filepath.WalkDir(filepath.Join("..", "..", "..", "pkg"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if strings.Contains(imp.Path.Value, "/clusterplane/iac/") || strings.HasSuffix(imp.Path.Value, "/clusterplane/registry\"") {
				t.Errorf("%s imports %s: pkg/ is below iac/ and the registry", path, imp.Path.Value)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
