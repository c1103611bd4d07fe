package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The command is flags, the prompt and rendering over libraries (docs/architecture.md): it
// reaches the clouds and the engine only through pkg/deploy and its neighbours, each of its
// functions reads on one screen, and the whole reads in an hour (under 2,000 lines).
func TestTheCommandImportsNoCloudOrPulumiPackageAndKeepsItsFunctionsShort(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const ours = "github.com/clusterplane/clusterplane/"
	for _, imp := range strings.Fields(string(out)) {
		for _, layer := range []string{"pkg/cloud/", "pkg/pulumi/"} {
			if strings.HasPrefix(imp, ours+layer) {
				t.Errorf("the command imports %s: reach it through a library", imp)
			}
		}
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	total := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		total += strings.Count(string(data), "\n")
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok {
				if lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; lines > 60 {
					t.Errorf("%s: %s is %d lines, more than 60", name, fn.Name.Name, lines)
				}
			}
		}
	}
	if total >= 2000 {
		t.Errorf("the command is %d lines, not under 2,000: move what is not flags, the prompt or rendering into a library", total)
	}
}
