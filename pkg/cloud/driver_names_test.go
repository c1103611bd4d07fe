package cloud_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
)

// namings are the places each Go file outside the drivers, the kinds, the API, the SDKs and the
// loopback clouds names a cloud, by the file's slash-separated path from the repository's root.
func namings(t *testing.T) map[string][]string {
	t.Helper()
	var words []string
	for _, d := range clouds.All() {
		id, name := string(d.ID()), d.Env().Name
		// An empty word would match every identifier in the tree and bury the one line that
		// matters under thousands: a new driver must give both first.
		if id == "" || name == "" {
			t.Fatalf("the driver %T has an empty ID (%q) or Env().Name (%q): give it both, the words this test looks for", d, id, name)
		}
		words = append(words, regexp.QuoteMeta(strings.ToLower(id)), regexp.QuoteMeta(strings.ToLower(name)))
	}
	named := regexp.MustCompile(`(?i)` + strings.Join(words, "|"))
	root := filepath.Join("..", "..")
	found := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if mayName(rel+"/", words) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		found[rel] = append(found[rel], fileNamings(fset, f, named)...)
		if len(found[rel]) == 0 {
			delete(found, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// fileNamings are the places f names a cloud: a string holding a cloud's ID or name; an import
// of a cloud's package (its path names the cloud, or it is a cloud's loopback, pkg/loopback/fake*
// but the shared fakecloud and the list fakeclouds); a selector of such a package (fakedo.New) or
// of a name holding a cloud's (cost.Civo, civo.ID), counted once and not again by its parts; and
// any other identifier holding one (a func addCivo, a field DigitalOceanToken).
func fileNamings(fset *token.FileSet, f *ast.File, named *regexp.Regexp) []string {
	var out []string
	add := func(n ast.Node, what string) { out = append(out, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), what)) }
	cloudImports := map[string]bool{}
	for _, spec := range f.Imports {
		path, _ := strconv.Unquote(spec.Path.Value)
		if !cloudPath(path, named) {
			continue
		}
		add(spec, spec.Path.Value)
		cloudImports[importName(spec, path)] = true
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			return false
		case *ast.BasicLit:
			if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && named.MatchString(s) {
				add(n, n.Value)
			}
		case *ast.SelectorExpr:
			x, ok := n.X.(*ast.Ident)
			if ok && (cloudImports[x.Name] || named.MatchString(x.Name) || named.MatchString(n.Sel.Name)) {
				add(n, x.Name+"."+n.Sel.Name)
				return false
			}
		case *ast.Ident:
			if named.MatchString(n.Name) {
				add(n, n.Name)
			}
		}
		return true
	})
	return out
}

// cloudPath tells whether the import path is a cloud's package: one of its path's elements names
// a cloud (pkg/cloud/civo, github.com/digitalocean/godo), or it is a cloud's loopback
// (pkg/loopback/fakedo), as mayName has every pkg/loopback/fake* folder but two.
func cloudPath(path string, named *regexp.Regexp) bool {
	const loopback = "github.com/clusterplane/clusterplane/pkg/loopback/fake"
	if strings.HasPrefix(path, loopback) {
		return !strings.HasPrefix(path+"/", loopback+"cloud/") && !strings.HasPrefix(path+"/", loopback+"clouds/")
	}
	for _, elem := range strings.Split(path, "/") {
		if named.MatchString(elem) {
			return true
		}
	}
	return false
}

// importName is the name an import's package goes by in the file: its own name, or the path's
// last element that is not a major version (github.com/pulumi/pulumi-civo/sdk/v2/go/civo: civo).
func importName(spec *ast.ImportSpec, path string) string {
	if spec.Name != nil {
		return spec.Name.Name
	}
	elems := strings.Split(path, "/")
	last := elems[len(elems)-1]
	if regexp.MustCompile(`^v[0-9]+$`).MatchString(last) && len(elems) > 1 {
		last = elems[len(elems)-2]
	}
	return last
}

// mayName tells whether the folder dir (slash-separated, ending in "/") is one where a cloud is
// named by right: a driver, a cloud's facts, a kind's folder, the API, the SDKs, a loopback cloud, the examples.
func mayName(dir string, ids []string) bool {
	for _, id := range ids {
		if dir == "pkg/cloud/"+id+"/" || dir == "pkg/cloudfacts/"+id+"/" {
			return true
		}
	}
	switch {
	case dir == ".git/", dir == ".engine/", strings.HasSuffix(dir, "/testdata/"), strings.HasSuffix(dir, "/node_modules/"):
		return true
	case strings.HasPrefix(dir, "apis/"), strings.HasPrefix(dir, "sdk/"), strings.HasPrefix(dir, "pkg/loopback/fake") && dir != "pkg/loopback/fakecloud/":
		return true
	case strings.HasPrefix(dir, "iac/pulumi/") && dir != "iac/pulumi/" && dir != "iac/pulumi/registry/":
		return true
	// The Karpenter provider, a module of its own whose NodeClass kinds are each one cloud's, as
	// the kinds under iac/pulumi are.
	case strings.HasPrefix(dir, "karpenter/"):
		return true
	case strings.HasPrefix(dir, "examples/"):
		// The examples are the kinds' use, not clusterplane's code: a user's program deploys a
		// cloud's kinds by their names, as examples/go/main.go shows one doing. Adding a cloud
		// adds its examples beside its kinds; nothing there branches on a cloud.
		return true
	}
	return false
}

// unavoidable are the places outside the drivers and the kinds that name every cloud by right:
// the lists themselves. Each names a cloud once a line of its list.
var unavoidable = map[string]string{
	// The drivers' list: a cloud is added here, by its driver's line.
	"pkg/cloud/clouds/clouds.go": "the list of cloud drivers",
	// The facts' list, which clouds' test keeps in the drivers' order.
	"pkg/cloudfacts/cloudlist/cloudlist.go": "the list of clouds' facts",
	// The kinds' list: a kind is added here, by its folder's line.
	"iac/pulumi/registry/registry.go": "the list of kinds",
}

// A cloud is named only by its driver (pkg/cloud/<cloud>), its kinds (iac/pulumi/<kind>, the
// API under apis/), the generated SDKs and its loopback cloud (pkg/loopback/fake*): everything
// else asks the driver (pkg/cloud/clouds), so that adding a cloud touches those places and the
// drivers' list, and a cloud no driver knows can never take another cloud's path. A naming is a
// string literal holding a cloud's ID or name, an import of a cloud's package or loopback, a
// selector of one (fakedo.New) or of a cloud's constant (cost.Civo, civo.ID), or an identifier
// holding a cloud's name (fileNamings); comments and tests are not counted.
func TestNoCodeOutsideTheDriversNamesACloud(t *testing.T) {
	found := namings(t)
	var files []string
	for f := range found {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		if _, ok := unavoidable[f]; ok {
			continue
		}
		t.Errorf("%s names a cloud outside the drivers and the kinds (ask its driver, pkg/cloud/clouds):\n\t%s",
			f, strings.Join(found[f], "\n\t"))
	}
}
