package capscheck

import (
	"fmt"
	"go/ast"
	"go/types"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

const stackstatePath = "github.com/clusterplane/clusterplane/pkg/deploy/stackstate"

// stackAssertions are the files that may ask a stackstate.Stack for another interface, and how
// many times each: none, as what a stack can do is a method of Stack. A count may fall, never
// rise.
var stackAssertions = map[string]int{}

// assertion is one type assertion (or type switch) on a backend or a stack.
type assertion struct{ on, at string }

// assertions are the type assertions and type switches of the non-test code under pkg/ and cmd/
// whose operand is an interface value that is a stackstate.Backend or a stackstate.Stack.
func assertions(t *testing.T) []assertion {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &packages.Config{Dir: root, Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
		packages.NeedTypesInfo}
	pkgs, err := packages.Load(cfg, "./pkg/...", "./cmd/...")
	if err != nil {
		t.Fatal(err)
	}
	var found []assertion
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Errorf("%s: %v", p.PkgPath, e)
		}
		backend, stack := stackstateTypes(p.Types)
		for _, f := range p.Syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				ta, ok := n.(*ast.TypeAssertExpr)
				if !ok {
					return true
				}
				typ := p.TypesInfo.TypeOf(ta.X)
				if typ == nil || !types.IsInterface(typ) {
					return true
				}
				at := p.Fset.Position(ta.Pos())
				rel, _ := filepath.Rel(root, at.Filename)
				where := fmt.Sprintf("%s:%d", filepath.ToSlash(rel), at.Line)
				switch {
				case backend != nil && types.Implements(typ, backend):
					found = append(found, assertion{"Backend", where})
				case stack != nil && types.Implements(typ, stack):
					found = append(found, assertion{"Stack", where})
				}
				return true
			})
		}
	}
	return found
}

// stackstateTypes are the Backend and Stack interfaces as pkg sees them: nil when it imports
// no package that holds them (it cannot hold a value of their type by name then, and a value of
// another interface type that has their methods is found through the packages that do).
func stackstateTypes(pkg *types.Package) (backend, stack *types.Interface) {
	find := func(p *types.Package) (*types.Interface, *types.Interface) {
		iface := func(name string) *types.Interface {
			if o, ok := p.Scope().Lookup(name).(*types.TypeName); ok {
				i, _ := o.Type().Underlying().(*types.Interface)
				return i
			}
			return nil
		}
		return iface("Backend"), iface("Stack")
	}
	if pkg.Path() == stackstatePath {
		return find(pkg)
	}
	seen := map[*types.Package]bool{}
	var walk func(p *types.Package) *types.Package
	walk = func(p *types.Package) *types.Package {
		if seen[p] {
			return nil
		}
		seen[p] = true
		for _, imp := range p.Imports() {
			if imp.Path() == stackstatePath {
				return imp
			}
			if found := walk(imp); found != nil {
				return found
			}
		}
		return nil
	}
	if ss := walk(pkg); ss != nil {
		return find(ss)
	}
	return nil, nil
}

// No code asks a backend for an interface: what a backend can do is a method of Backend, which a
// wrapper that embeds it forwards, and one that cannot do it answers so. Nor a stack, beyond the
// sites stackAssertions lists, no more often than it says.
func TestNoCodeAssertsABackendOrAStackToAnotherInterface(t *testing.T) {
	perFile := map[string][]string{}
	for _, a := range assertions(t) {
		file, _, _ := strings.Cut(a.at, ":")
		switch a.on {
		case "Backend":
			t.Errorf("%s asserts a stackstate.Backend to another interface: make the ability a method of Backend, "+
				"which every backend has (one that cannot do it returns the sentinel its comment names)", a.at)
		case "Stack":
			perFile[file] = append(perFile[file], a.at)
		}
	}
	files := make([]string, 0, len(perFile))
	for file := range perFile {
		files = append(files, file)
	}
	sort.Strings(files)
	for _, file := range files {
		if got, allowed := len(perFile[file]), stackAssertions[file]; got > allowed {
			t.Errorf("%s asserts a stackstate.Stack to another interface %d times, %d allowed (%s): make the ability a "+
				"method of Stack instead", file, got, allowed, strings.Join(perFile[file], ", "))
		}
	}
}
