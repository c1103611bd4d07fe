package deploy_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// maxMethods is the most methods a type of pkg/deploy may have: past that, a newcomer can no
// longer hold a type's whole surface in mind, and the type is a hall to split into rooms.
const maxMethods = 30

// A step of an operation (previewing, applying, creating, reading, recovering, rotating, and the
// guards they make) holds what it uses, built by its constructor from the Deployer, never the
// Deployer itself: then what a step can touch is read off its fields, and a test builds it with
// only those. Each row below but the first shows the check finding what it must, so that the
// first row, pkg/deploy's own files, passing means something.
// Promise: deploy-steps-hold-what-they-use
func TestNoStructHoldsTheDeployerAndNoTypeHasOver30Methods(t *testing.T) {
	tests := []struct {
		name string
		// src is one file to check; "" checks pkg/deploy's own (non-test) files.
		src  string
		want []string
	}{
		{name: "pkg/deploy's own files hold no Deployer, and no type there has over 30 methods"},
		{name: "a view that embeds *Deployer is found",
			src: "package deploy\ntype previewing struct{ *Deployer }", want: []string{"x.go: previewing embeds the Deployer"}},
		{name: "a view that embeds Deployer by value is found",
			src: "package deploy\ntype reading struct{ Deployer }", want: []string{"x.go: reading embeds the Deployer"}},
		{name: "a guard that holds a *Deployer field is found",
			src:  "package deploy\ntype readGuard struct {\n\td *Deployer\n\tt int\n}",
			want: []string{"x.go: readGuard holds the Deployer in field d"}},
		{name: "a struct inside a function that holds the Deployer is found",
			src:  "package deploy\nfunc f() { _ = struct{ d *Deployer }{} }",
			want: []string{"x.go: a struct at line 2 holds the Deployer in field d"}},
		{name: "a type with 31 methods is found", src: withMethods("Deployer", 31),
			want: []string{"Deployer has 31 methods, more than 30"}},
		{name: "a type with 30 methods, pointer and value receivers alike, is not", src: withMethods("applying", 30)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fset := token.NewFileSet()
			var files []*ast.File
			if tt.src == "" {
				files = packageFiles(t, fset, ".")
			} else {
				f, err := parser.ParseFile(fset, "x.go", tt.src, 0)
				if err != nil {
					t.Fatal(err)
				}
				files = []*ast.File{f}
			}
			if got := deployerFindings(fset, files); !slices.Equal(got, tt.want) {
				t.Errorf("found %q, want %q: a step holds what it uses (built by its constructor), "+
					"not the Deployer, and a type over %d methods is split", got, tt.want, maxMethods)
			}
		})
	}
}

// withMethods is a file declaring type name with n methods, every other one on a pointer.
func withMethods(name string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package deploy\ntype %s struct{}\n", name)
	for i := range n {
		star := ""
		if i%2 == 0 {
			star = "*"
		}
		fmt.Fprintf(&b, "func (x %s%s) m%d() {}\n", star, name, i)
	}
	return b.String()
}

// packageFiles parses the non-test Go files of dir.
func packageFiles(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, path, data, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// deployerFindings says what of files breaks the rules above: each struct that embeds the
// Deployer or holds it in a field (file: struct), then each type with more than maxMethods methods.
func deployerFindings(fset *token.FileSet, files []*ast.File) []string {
	var out []string
	methods := map[string]int{}
	for _, f := range files {
		file := filepath.Base(fset.Position(f.Pos()).Filename)
		named := map[*ast.StructType]string{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeSpec:
				if st, ok := n.Type.(*ast.StructType); ok {
					named[st] = n.Name.Name
				}
			case *ast.StructType:
				name := named[n]
				if name == "" {
					name = fmt.Sprintf("a struct at line %d", fset.Position(n.Pos()).Line)
				}
				for _, field := range n.Fields.List {
					switch {
					case !isDeployer(field.Type):
					case len(field.Names) == 0:
						out = append(out, fmt.Sprintf("%s: %s embeds the Deployer", file, name))
					default:
						out = append(out, fmt.Sprintf("%s: %s holds the Deployer in field %s", file, name, field.Names[0].Name))
					}
				}
			case *ast.FuncDecl:
				if n.Recv != nil && len(n.Recv.List) == 1 {
					methods[receiverType(n.Recv.List[0].Type)]++
				}
			}
			return true
		})
	}
	var crowded []string
	for name, n := range methods {
		if n > maxMethods {
			crowded = append(crowded, fmt.Sprintf("%s has %d methods, more than %d", name, n, maxMethods))
		}
	}
	sort.Strings(crowded)
	return append(out, crowded...)
}

// isDeployer tells a field's type is the Deployer or a pointer to it.
func isDeployer(e ast.Expr) bool {
	if star, ok := e.(*ast.StarExpr); ok {
		e = star.X
	}
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "Deployer"
}

// receiverType is the name of a method's receiver type, T of x T, x *T and x *T[P].
func receiverType(e ast.Expr) string {
	if star, ok := e.(*ast.StarExpr); ok {
		e = star.X
	}
	switch x := e.(type) {
	case *ast.IndexExpr:
		e = x.X
	case *ast.IndexListExpr:
		e = x.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
