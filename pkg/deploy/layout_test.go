package deploy_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// generated marks a file a tool writes (Go's convention): its functions are the tool's, not read
// or edited by hand.
var generated = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// The project reads as rooms a newcomer can name (docs/architecture.md): no package of it is
// over 3,000 lines of non-test code, and no hand-written function, tests' included, is over 80
// lines, so that each reads on a screen or two. Data tables are the exception: the lines of a
// composite literal written over several lines (a kind's effects rows, a table-driven test's
// cases) are read row by row, and do not count.
func TestNoPackageIsAHallAndNoHandWrittenFunctionIsOver80Lines(t *testing.T) {
	root := filepath.Join("..", "..")
	sizes := map[string]int{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil || generated.Match(data) {
			return err
		}
		if !strings.HasSuffix(path, "_test.go") {
			sizes[filepath.ToSlash(filepath.Dir(rel))] += strings.Count(string(data), "\n")
		}
		for _, long := range longFunctions(t, path, data, 80) {
			t.Errorf("%s: %s", rel, long)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for pkg, lines := range sizes {
		if lines > maxPackageLines {
			t.Errorf("%s is %d lines of non-test code, more than %d: split it into packages a newcomer can name", pkg, lines, maxPackageLines)
		}
	}
}

// maxPackageLines is the most non-test code a package may hold, with no exception: pkg/deploy was
// 8,056 lines before issue 65, and 2,781 once its rooms moved out (stackstate, deploytarget,
// outcome, queue and rotationrun, fielddrift, runreport, savedplan, readrepair below the Deployer;
// pipeline above it).
const maxPackageLines = 3000

// longFunctions are the functions (and function literals) of a file over max lines of code, each
// said with its line and length. The lines inside a composite literal that spans several lines
// are data, not code: of such a literal only its first line counts.
func longFunctions(t *testing.T, path string, data []byte, max int) []string {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, data, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(file, func(n ast.Node) bool {
		name := ""
		switch fn := n.(type) {
		case *ast.FuncDecl:
			name = fn.Name.Name
		case *ast.FuncLit:
			name = "a function literal"
		default:
			return true
		}
		start, end := fset.Position(n.Pos()).Line, fset.Position(n.End()).Line
		if lines := end - start + 1 - dataLines(fset, n); lines > max {
			out = append(out, fmt.Sprintf("%s at line %d is %d lines of code, more than %d", name, start, lines, max))
		}
		return true
	})
	return out
}

// dataLines is how many lines of fn are inside its outermost composite literals, less each
// literal's first line. A function literal inside a composite literal is code again: its lines
// are counted when it is itself measured, and here they count as data of the function around it.
func dataLines(fset *token.FileSet, fn ast.Node) int {
	lines := 0
	ast.Inspect(fn, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		lines += fset.Position(lit.End()).Line - fset.Position(lit.Pos()).Line
		return false
	})
	return lines
}
