package docs

// docs/architecture.md is the map of the code: what it names in backticks must be there. The test
// checks what it can resolve without doubt and skips the rest (a command's name, a YAML key, a
// value): repository paths, Go names qualified by a package the page names, types' members, bare
// exported Go names and bare file names.

import (
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
)

const archPage = "docs/architecture.md"

// archModule is the module whose import paths name folders under root.
const archModule = "github.com/clusterplane/clusterplane/"

var (
	// archPath is a path from the repository's root: its first folder is one of these.
	archPath = regexp.MustCompile(`^(pkg|cmd|iac|apis|karpenter|tools|e2e|deploy|examples|schemas|sdk|internal|bench)/[^\s{}()]*$`)
	// archPlaceholder is a folder the page writes as <kind>, <cloud>, ...
	archPlaceholder = regexp.MustCompile(`<[a-z]+>`)
	// archQualified is pkg.Name or pkg.Type.Member.
	archQualified = regexp.MustCompile(`^([a-z][a-z0-9]*)\.([A-Z][A-Za-z0-9_]*)(?:\.([A-Z][A-Za-z0-9_]*))?$`)
	// archMember is Type.Member.
	archMember = regexp.MustCompile(`^([A-Z][A-Za-z0-9_]*)\.([A-Z][A-Za-z0-9_]*)$`)
	// archExported is a bare exported Go name (not an environment variable: it has a lower-case letter).
	archExported = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*$`)
	// archFile is a bare file name.
	archFile = regexp.MustCompile(`^[A-Za-z0-9_.-]+\.(go|sh|json|yaml|proto)$`)
	// archFormer, right before a code span, says it is a name the code no longer has (the
	// Vocabulary's "was ...", "were ...", "(once ...)"); archFormerList carries it on to the spans
	// listed after that one ("were `a`, `b` and `c`", "was `f` in `f.go`").
	archFormer     = regexp.MustCompile(`(^|\s)(was|were|once)\s*$`)
	archFormerList = regexp.MustCompile(`^\s*(,|and|in|,\s*and)?\s*$`)
	// archRowPath is a Layout row's first cell; archSectionPath a section's heading naming a path.
	archRowPath     = regexp.MustCompile("^\\|\\s*`([^`]+/)`\\s*\\|")
	archSectionPath = regexp.MustCompile("^###\\s+`([^`]+/)`\\s*$")
	archBareDir     = regexp.MustCompile(`^[a-z][a-z0-9_]*(/[a-z][a-z0-9_]*)*$`)
)

// An archSpan is one code span of the page.
type archSpan struct {
	text   string
	line   int
	row    string // the path of the Layout row or the section (### `path`) it is in, if any
	scope  int    // the line of that row or that section's heading
	former bool   // named as what the code was called once
}

// archSpans returns the page's code spans outside fenced code.
func archSpans(text string) []archSpan {
	var out []archSpan
	inFence := false
	since := ""         // the prose since the last code span or clause boundary
	prevFormer := false // whether the last span of this clause was a former name
	section, sectionLine := "", 0
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "#") {
			section, sectionLine = "", 0
			if m := archSectionPath.FindStringSubmatch(line); m != nil {
				section, sectionLine = m[1], i+1
			}
		}
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		row, scope := section, sectionLine
		if m := archRowPath.FindStringSubmatch(line); m != nil {
			row, scope = m[1], i+1
		}
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "|") {
			since, prevFormer = "", false
		}
		since += " "
		for j := 0; j < len(line); j++ {
			c := line[j]
			if c != '`' {
				if strings.IndexByte("();:|", c) >= 0 {
					since, prevFormer = "", false
				} else {
					since += string(c)
				}
				continue
			}
			end := strings.IndexByte(line[j+1:], '`')
			if end < 0 {
				break
			}
			former := archFormer.MatchString(since) || (prevFormer && archFormerList.MatchString(since))
			out = append(out, archSpan{text: line[j+1 : j+1+end], line: i + 1, row: row, scope: scope, former: former})
			since, prevFormer = "", former
			j += end + 1
		}
	}
	return out
}

// archExpand returns the paths under root a path of the page names, its placeholders (<kind>,
// <cloud>) standing for every folder there.
func archExpand(path string) []string {
	pattern := archPlaceholder.ReplaceAllString(strings.TrimSuffix(path, "/"), "*")
	matches, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(pattern)))
	return matches
}

// An archType is a declared type: its fields and methods, and the types it embeds or aliases.
type archType struct {
	members map[string]bool
	embeds  []archRef
}

// An archRef is a type by its package's folder and its name.
type archRef struct{ dir, name string }

// An archPackage is what a folder's non-test Go files declare at top level.
type archPackage struct {
	name  string // from the package clause
	names map[string]bool
	types map[string]*archType
}

// archIndex parses packages once each.
type archIndex map[string]*archPackage

// load returns the package in dir, nil if dir holds no non-test Go file.
func (x archIndex) load(dir string) *archPackage {
	dir = filepath.Clean(dir)
	if p, ok := x[dir]; ok {
		return p
	}
	x[dir] = nil
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var p *archPackage
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		if p == nil {
			p = &archPackage{name: f.Name.Name, names: map[string]bool{}, types: map[string]*archType{}}
		}
		p.add(f)
	}
	x[dir] = p
	return p
}

// typ returns the named type, made if it is not yet.
func (p *archPackage) typ(name string) *archType {
	t := p.types[name]
	if t == nil {
		t = &archType{members: map[string]bool{}}
		p.types[name] = t
	}
	return t
}

// add records a file's top-level funcs, types, consts and vars, methods and fields.
func (p *archPackage) add(f *ast.File) {
	imports := map[string]string{} // local name to folder under root
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if !strings.HasPrefix(path, archModule) {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		imports[name] = filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(path, archModule)))
	}
	ref := func(e ast.Expr) (archRef, bool) {
		for {
			switch v := e.(type) {
			case *ast.StarExpr:
				e = v.X
				continue
			case *ast.IndexExpr:
				e = v.X
				continue
			case *ast.IndexListExpr:
				e = v.X
				continue
			case *ast.Ident:
				return archRef{name: v.Name}, true
			case *ast.SelectorExpr:
				if id, ok := v.X.(*ast.Ident); ok && imports[id.Name] != "" {
					return archRef{dir: imports[id.Name], name: v.Sel.Name}, true
				}
			}
			return archRef{}, false
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil || len(d.Recv.List) == 0 {
				p.names[d.Name.Name] = true
				continue
			}
			if r, ok := ref(d.Recv.List[0].Type); ok && r.dir == "" {
				p.typ(r.name).members[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						p.names[n.Name] = true
					}
				case *ast.TypeSpec:
					p.names[s.Name.Name] = true
					t := p.typ(s.Name.Name)
					var fields *ast.FieldList
					switch u := s.Type.(type) {
					case *ast.StructType:
						fields = u.Fields
					case *ast.InterfaceType:
						fields = u.Methods
					default:
						if s.Assign.IsValid() {
							if r, ok := ref(u); ok {
								t.embeds = append(t.embeds, r)
							}
						}
					}
					if fields == nil {
						continue
					}
					for _, fl := range fields.List {
						for _, n := range fl.Names {
							t.members[n.Name] = true
						}
						if len(fl.Names) == 0 {
							if r, ok := ref(fl.Type); ok {
								t.members[r.name] = true
								t.embeds = append(t.embeds, r)
							}
						}
					}
				}
			}
		}
	}
}

// hasMember tells whether the type name in dir has the field or method member, its embedded
// types' promoted ones included.
func (x archIndex) hasMember(dir, name, member string, depth int) bool {
	p := x.load(dir)
	if p == nil || depth > 8 {
		return false
	}
	t := p.types[name]
	if t == nil {
		return false
	}
	if t.members[member] {
		return true
	}
	for _, e := range t.embeds {
		d := e.dir
		if d == "" {
			d = dir
		}
		if x.hasMember(d, e.name, member, depth+1) {
			return true
		}
	}
	return false
}

// archFileNames are the base names of the repository's files, but those of folders not ours.
func archFileNames(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (skippedForTests[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		names[d.Name()] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func TestTheArchitecturePageNamesOnlyPackagesFilesAndFunctionsThatExist(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(archPage)))
	if err != nil {
		t.Fatal(err)
	}
	spans := archSpans(string(src))
	index := archIndex{}
	counts := map[string]int{}
	var skippedNames []string

	// The paths first: each must exist, and those that hold Go code are the packages the page
	// names, by their folder's last element and their package clause.
	packages := map[string][]string{}
	addPackage := func(dir string) {
		p := index.load(dir)
		if p == nil {
			return
		}
		for _, key := range []string{filepath.Base(dir), p.name} {
			if !contains(packages[key], dir) {
				packages[key] = append(packages[key], dir)
			}
		}
	}
	for _, s := range spans {
		if s.former || !archPath.MatchString(s.text) {
			continue
		}
		counts["paths"]++
		matches := archExpand(s.text)
		if len(matches) == 0 {
			t.Errorf("%s:%d: `%s` names no file or folder of the repository", archPage, s.line, s.text)
		}
		for _, m := range matches {
			addPackage(m)
		}
	}
	// A Layout row's bare folder names (`store` in the row of `pkg/serve/`) name its packages too.
	for _, s := range spans {
		if s.row != "" && !s.former && archBareDir.MatchString(s.text) {
			for _, m := range archExpand(s.row + s.text) {
				addPackage(m)
			}
		}
	}

	// declares tells whether any of dirs declares name at top level.
	declares := func(dirs []string, name string) bool {
		for _, d := range dirs {
			if p := index.load(d); p != nil && p.names[name] {
				return true
			}
		}
		return false
	}
	// typeHas tells whether a type name of any of dirs has member; known, whether any declares it.
	typeHas := func(dirs []string, name, member string) (has, known bool) {
		for _, d := range dirs {
			if p := index.load(d); p != nil && p.types[name] != nil {
				known = true
				if index.hasMember(d, name, member, 0) {
					return true, true
				}
			}
		}
		return false, known
	}
	var allDirs []string
	for _, dirs := range packages {
		for _, d := range dirs {
			if !contains(allDirs, d) {
				allDirs = append(allDirs, d)
			}
		}
	}
	sort.Strings(allDirs)
	// declaredIn tells whether a package of dirs declares name or a type of one has it as a member.
	declaredIn := func(dirs []string, name string) bool {
		if declares(dirs, name) {
			return true
		}
		for _, d := range dirs {
			if p := index.load(d); p != nil {
				for tn := range p.types {
					if index.hasMember(d, tn, name, 0) {
						return true
					}
				}
			}
		}
		return false
	}

	// A Layout row's or a section's scope is the packages under its folder and those its paths
	// name: a bare Go name in it is declared there (`Resolve` in the section of `pkg/cloudfacts/`).
	scopes := map[int][]string{} // by the row's or the heading's line
	for _, s := range spans {
		if s.row == "" || scopes[s.scope] != nil {
			continue
		}
		var scope []string
		for _, top := range archExpand(s.row) {
			filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
				if err == nil && d.IsDir() && index.load(path) != nil {
					scope = append(scope, filepath.Clean(path))
				}
				return nil
			})
		}
		for _, o := range spans {
			if o.scope != s.scope || o.former || !archPath.MatchString(o.text) {
				continue
			}
			for _, m := range archExpand(o.text) {
				if fi, err := os.Stat(m); err == nil && !fi.IsDir() {
					m = filepath.Dir(m)
				}
				if index.load(m) != nil && !contains(scope, filepath.Clean(m)) {
					scope = append(scope, filepath.Clean(m))
				}
			}
		}
		scopes[s.scope] = append(scope, "") // never nil once made
	}

	files := archFileNames(t)
	for _, s := range spans {
		if s.former {
			counts["former names, not checked"]++
			continue
		}
		switch m, mm := archQualified.FindStringSubmatch(s.text), archMember.FindStringSubmatch(s.text); {
		case m != nil:
			dirs := packages[m[1]]
			if len(dirs) == 0 {
				skippedNames = append(skippedNames, s.text)
				continue
			}
			counts["qualified names"]++
			if !declares(dirs, m[2]) {
				t.Errorf("%s:%d: `%s`: %s declares no %s", archPage, s.line, s.text, rel(dirs), m[2])
				continue
			}
			if m[3] == "" {
				continue
			}
			if has, known := typeHas(dirs, m[2], m[3]); known && !has {
				t.Errorf("%s:%d: `%s`: %s.%s has no field or method %s", archPage, s.line, s.text, m[1], m[2], m[3])
			}
		case mm != nil:
			has, known := typeHas(allDirs, mm[1], mm[2])
			if !known {
				skippedNames = append(skippedNames, s.text)
				continue
			}
			counts["type members"]++
			if !has {
				t.Errorf("%s:%d: `%s`: no type %s in the packages the page names has a field or method %s", archPage, s.line, s.text, mm[1], mm[2])
			}
		case archExported.MatchString(s.text) && s.row != "":
			counts["bare Go names in a Layout row or section"]++
			if scope := scopes[s.scope]; !declaredIn(scope, s.text) {
				t.Errorf("%s:%d: `%s` is declared neither under %s nor in a package its row or section names", archPage, s.line, s.text, s.row)
			}
		case archExported.MatchString(s.text):
			counts["bare Go names"]++
			if !declaredIn(allDirs, s.text) {
				t.Errorf("%s:%d: `%s` is declared in none of the packages the page names", archPage, s.line, s.text)
			}
		case archFile.MatchString(s.text):
			counts["bare file names"]++
			if !files[s.text] {
				t.Errorf("%s:%d: `%s` is the name of no file of the repository", archPage, s.line, s.text)
			}
		}
	}
	var summary []string
	for k, v := range counts {
		summary = append(summary, k+": "+strconv.Itoa(v))
	}
	sort.Strings(summary)
	t.Logf("%d code spans; %d packages named; checked %s", len(spans), len(allDirs), strings.Join(summary, ", "))
	if len(skippedNames) > 0 {
		t.Logf("not resolved to a package the page names, so not checked: %s", strings.Join(skippedNames, " "))
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// rel names folders relative to root.
func rel(dirs []string) string {
	var out []string
	for _, d := range dirs {
		r, err := filepath.Rel(root, d)
		if err != nil {
			r = d
		}
		out = append(out, filepath.ToSlash(r))
	}
	return strings.Join(out, " or ")
}
