package registry_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
)

func TestEveryKindIsListedOnceWithItsProgramComponentAndEffects(t *testing.T) {
	seen, programs := map[string]bool{}, map[string]bool{}
	for _, k := range registry.Kinds() {
		programs[k.Project] = true
		if seen[k.Name] {
			t.Errorf("%s is listed twice", k.Name)
		}
		seen[k.Name] = true
		if k.Project != strings.ToLower(k.Name) {
			t.Errorf("%s: program %q, want %q", k.Name, k.Project, strings.ToLower(k.Name))
		}
		if registry.Kinds().Table(k.Name) == nil || registry.Kinds().Table(k.Name).Types["component"] != k.Component.Token {
			t.Errorf("%s: component %q does not match the effects table", k.Name, k.Component.Token)
		}
		if got, ok := registry.Kinds().ByName(k.Name); !ok || got.Project != k.Project {
			t.Errorf("ByName(%s) = %v, %t", k.Name, got.Project, ok)
		}
	}
	// The list holds every kind folder there is: a fifth kind is its folder and a line in the list.
	folders, err := filepath.Glob(filepath.Join("..", "*", "entry"))
	if err != nil || len(folders) == 0 {
		t.Fatalf("no kind folders under iac/pulumi: %v", err)
	}
	for _, f := range folders {
		if program := filepath.Base(filepath.Dir(f)); !programs[program] {
			t.Errorf("iac/pulumi/%s is a kind's folder the list does not hold", program)
		}
	}
	if len(folders) != len(seen) {
		t.Errorf("%d kinds listed, %d kind folders", len(seen), len(folders))
	}
}

// A kind's program reads its cloud's live prices through the driver its entry names
// (program.Program's Driver, the one driver its binary links): another cloud's driver would leave
// a diff priced from the table.
func TestEveryKindsProgramCarriesItsOwnCloudsDriver(t *testing.T) {
	for _, k := range registry.Kinds() {
		t.Run(k.Name, func(t *testing.T) {
			want, ok := cloudlist.OfInput(k.NewStackInput())
			if !ok {
				t.Fatalf("%s's stack input is of no listed cloud", k.Name)
			}
			// Offline is a program.Program of the kind's stack-input type, whose Driver field
			// only reflection reads here.
			field := reflect.ValueOf(k.Offline).FieldByName("Driver")
			if !field.IsValid() || field.IsNil() {
				t.Fatalf("%s's program carries no driver", k.Name)
			}
			if got := field.Interface().(cloud.Driver).ID(); got != want.ID() {
				t.Errorf("%s's program carries %s's driver, want %s's", k.Name, got, want.ID())
			}
		})
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

// kindPackage matches the import paths of one kind: its API (apis/.../provider/<cloud>/<kind>/v1)
// and its folder (iac/pulumi/<kind>/...).
var kindPackage = regexp.MustCompile(`/clusterplane/(apis/clusterplane/provider/[a-z]+/([a-z]+)/v1|iac/pulumi/([a-z]+)/)`)

func TestAKindIsImportedOnlyFromItsOwnFolderAndTheList(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			// The API's own packages, the generated SDKs, the end-to-end scenarios and the example
			// programs name kinds by design; what builds the product must not.
			switch rel {
			case "apis", "sdk", "e2e", "examples", ".engine", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			m := kindPackage.FindStringSubmatch(imp.Path.Value)
			if m == nil {
				continue
			}
			file, kind := filepath.ToSlash(rel), m[2]+m[3]
			switch {
			case kind == "registry", strings.HasPrefix(file, "iac/pulumi/registry/"):
				continue // the list
			case strings.HasPrefix(file, "iac/pulumi/"+kind+"/"):
				continue // the kind's own folder
			}
			t.Errorf("%s imports %s: a kind is imported by its own folder and iac/pulumi/registry only", rel, imp.Path.Value)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
