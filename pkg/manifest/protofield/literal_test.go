package protofield_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// A field read by a string literal still compiles when the field is renamed, and then reads
// nothing: the code that builds the product names fields by the constants tools/fieldsgen
// generates, in descriptor lookups (Fields().ByName, ByJSONName, ByTextName) and protofield's
// readers alike. A name that has to be data (a path on an effects row) is passed as a value, not
// written here as a literal.
func TestNoFieldIsLookedUpByAStringLiteral(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == "testdata" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		top, _, _ := strings.Cut(rel, "/")
		if top != "pkg" && top != "iac" && top != "cmd" && top != "tools" ||
			!strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, "_gen.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			var literal ast.Expr
			switch {
			case isFieldLookup(sel) && len(call.Args) == 1 && isLiteral(call.Args[0]):
				literal = call.Args[0]
			case isIdent(sel.X, "protofield"):
				for i, arg := range call.Args {
					if sel.Sel.Name == "MapValue" && i == 2 {
						continue // the map's key, not a field
					}
					if isLiteral(arg) {
						literal = arg
					}
				}
			}
			if literal != nil {
				t.Errorf("%s: %s names a field by a string literal: use the generated constant "+
					"(kindfield.*, <Message>Field<Field>)", fset.Position(literal.Pos()), sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d files checked: is the walk at the repository's root?", checked)
	}
}

// isFieldLookup tells whether sel is x.Fields().ByName (or ByJSONName, ByTextName).
func isFieldLookup(sel *ast.SelectorExpr) bool {
	switch sel.Sel.Name {
	case "ByName", "ByJSONName", "ByTextName":
	default:
		return false
	}
	call, ok := sel.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	fields, ok := call.Fun.(*ast.SelectorExpr)
	return ok && fields.Sel.Name == "Fields"
}

// isLiteral tells whether e is a string literal, or one converted (protoreflect.Name("size")).
func isLiteral(e ast.Expr) bool {
	if call, ok := e.(*ast.CallExpr); ok && len(call.Args) == 1 {
		e = call.Args[0]
	}
	lit, ok := e.(*ast.BasicLit)
	return ok && lit.Kind == token.STRING
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
