package wordcheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// guarded are the folders whose code must not read a reason's words: those that write outcomes
// and their reasons, and those that turn them into reports.
var guarded = []string{
	"../../pkg/deploy",
	"../../pkg/deploy/fielddrift",
	"../../pkg/deploy/outcome",
	"../../pkg/deploy/runreport",
	"../../pkg/deploy/queue",
	"../../pkg/deploy/pipeline",
	"../../pkg/deploy/rotationrun",
	"../../pkg/deploy/render",
}

// searches are the strings functions that find or strip words in a text. A reason's words are
// for people: a test of them (does it begin with "failed"?) would pass or fail when someone
// rewords a sentence, and a new reason would be judged by how it happens to be spelled.
var searches = map[string]bool{
	"HasPrefix": true, "HasSuffix": true, "TrimPrefix": true, "TrimSuffix": true, "CutPrefix": true,
	"CutSuffix": true, "Contains": true, "ContainsAny": true, "Index": true, "IndexAny": true,
	"LastIndex": true, "Cut": true, "Replace": true, "ReplaceAll": true,
}

// wordy are the names that hold what an outcome says to people: a reason, a message, a verb
// or word of a report, a text built from them. An argument that names one of them (s.Reason,
// word, text) or an error's text (err.Error()) is a reason's words.
var wordy = []string{"reason", "text", "word", "verb"}

// TestNoCodeDecidesByAReasonsWords fails on a strings search, or any use of regexp, whose
// arguments are a reason's words. The rule is narrow on purpose so that it holds with no
// exception: paths, ids and URLs are searched by other names (p, field, l.ID) and pass. Cutting
// a text at a newline, to keep its first line, reads no word and passes too.
func TestNoCodeDecidesByAReasonsWords(t *testing.T) {
	fset := token.NewFileSet()
	for _, dir := range guarded {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go files in %s: %v", dir, err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				pkg, fn, ok := qualified(call.Fun)
				switch {
				case !ok:
				case pkg == "regexp" && anyWordy(call.Args):
					t.Errorf("%s: regexp.%s reads a reason's words", fset.Position(call.Pos()), fn)
				case pkg == "strings" && searches[fn] && anyWordy(call.Args) && !atNewline(fn, call.Args):
					t.Errorf("%s: strings.%s searches a reason's words: carry what the code needs to know as a field or a type",
						fset.Position(call.Pos()), fn)
				}
				return true
			})
		}
	}
}

// qualified is a call's package and function when it calls one by its package's name
// (strings.HasPrefix).
func qualified(fun ast.Expr) (pkg, fn string, ok bool) {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return "", "", false
	}
	id, ok := sel.X.(*ast.Ident)
	if !ok {
		return "", "", false
	}
	return id.Name, sel.Sel.Name, true
}

// anyWordy tells whether an argument is a reason's words or searches for one: an identifier or
// field whose name holds one of wordy, a call of an Error method, or a literal that is a word or
// phrase of letters and spaces ("would", "no drift"), which only a sentence holds: the paths,
// ids and URLs searched here are cut at punctuation (".", ":", "/").
func anyWordy(args []ast.Expr) bool {
	found := false
	for _, arg := range args {
		ast.Inspect(arg, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && phrase(s) {
					found = true
				}
			case *ast.Ident:
				name := strings.ToLower(n.Name)
				for _, w := range wordy {
					found = found || strings.Contains(name, w)
				}
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Error" {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// atNewline tells a strings.Cut at a newline: it splits a text into its first line and the
// rest, which keeps the text's layout and reads none of its words.
func atNewline(fn string, args []ast.Expr) bool {
	if fn != "Cut" || len(args) != 2 {
		return false
	}
	lit, ok := args[1].(*ast.BasicLit)
	if !ok {
		return false
	}
	sep, err := strconv.Unquote(lit.Value)
	return err == nil && sep == "\n"
}

// phrase tells a text of letters and spaces, with at least one letter.
func phrase(s string) bool {
	letters := 0
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letters++
		case r != ' ':
			return false
		}
	}
	return letters > 0
}
