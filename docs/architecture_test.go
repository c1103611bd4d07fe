package docs

// docs/architecture.md is the map of the code: what it names in backticks must be there, and its
// tables must stay short enough to read. checkArchitecture holds the names (repository paths, Go
// names qualified by a package, types' members, bare exported Go names, bare file names; its doc
// comment gives the rule) and leaves a span of no such form alone (a command, a YAML key, a
// value); archLongCells holds each table cell to archMaxCell characters.

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
	"unicode/utf8"
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
	// archCall is a Go call, `pipeline.Up(deploy.UpOptions{...})`; archInExpr a package's name in it.
	archCall   = regexp.MustCompile(`^[a-z][A-Za-z0-9_]*\.[A-Z][A-Za-z0-9_]*\(.*\)$`)
	archInExpr = regexp.MustCompile(`(?:^|[^A-Za-z0-9_.])([a-z][a-z0-9]*\.[A-Z][A-Za-z0-9_]*)`)
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
	imports := archImports(f)
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			p.addFunc(d, imports)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						p.names[n.Name] = true
					}
				case *ast.TypeSpec:
					p.addType(s, imports)
				}
			}
		}
	}
}

// archImports maps a file's local names for this module's packages to their folders under root,
// so that a type embedded from a sibling package can be followed there. Other imports are left
// out: the page's names are never members promoted from outside the module.
func archImports(f *ast.File) map[string]string {
	imports := map[string]string{}
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
	return imports
}

// archRefOf names the type an expression stands for: pointers and type arguments are stripped
// because `*T` and `T[K]` have T's members. It fails for what names no type of ours (a map, a
// func, a type of a package outside the module).
func archRefOf(e ast.Expr, imports map[string]string) (archRef, bool) {
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

// addFunc records a function as a package-level name and a method as a member of its receiver's
// type, since the page writes the one as `pkg.Func` and the other as `Type.Method`.
func (p *archPackage) addFunc(d *ast.FuncDecl, imports map[string]string) {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		p.names[d.Name.Name] = true
		return
	}
	if r, ok := archRefOf(d.Recv.List[0].Type, imports); ok && r.dir == "" {
		p.typ(r.name).members[d.Name.Name] = true
	}
}

// addType records a type's name, its fields or interface methods, and what it embeds or aliases,
// so that members promoted through an embedded type or an alias are found too.
func (p *archPackage) addType(s *ast.TypeSpec, imports map[string]string) {
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
			if r, ok := archRefOf(u, imports); ok {
				t.embeds = append(t.embeds, r)
			}
		}
	}
	if fields == nil {
		return
	}
	for _, fl := range fields.List {
		for _, n := range fl.Names {
			t.members[n.Name] = true
		}
		if len(fl.Names) == 0 {
			if r, ok := archRefOf(fl.Type, imports); ok {
				t.members[r.name] = true
				t.embeds = append(t.embeds, r)
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

// An archRepo is what the checks read of the repository, once for every page they check: its
// packages, each parsed when first asked for, its file names, and its folders of Go code.
type archRepo struct {
	index archIndex
	files map[string]bool // the base names of the repository's files
	dirs  []string        // every folder holding non-test Go code, listed on first use
}

// newArchRepo lists the repository's file names, but those of folders not ours.
func newArchRepo(t *testing.T) *archRepo {
	t.Helper()
	r := &archRepo{index: archIndex{}, files: map[string]bool{}}
	err := walkOurFiles(func(_ string, d fs.DirEntry) error {
		r.files[d.Name()] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// goDirs is every folder of the repository, but those not ours, that holds non-test Go code.
func (r *archRepo) goDirs() []string {
	if r.dirs != nil {
		return r.dirs
	}
	seen := map[string]bool{}
	walkOurFiles(func(path string, d fs.DirEntry) error {
		n, dir := d.Name(), filepath.Dir(path)
		if strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") && !seen[dir] {
			seen[dir] = true
			r.dirs = append(r.dirs, dir)
		}
		return nil
	})
	return r.dirs
}

// packagesNamed is every package of the repository whose folder's last element or package
// clause is name. It parses every package once, so it is asked only for what the packages the
// page names leave unresolved.
func (r *archRepo) packagesNamed(name string) []string {
	var dirs []string
	for _, d := range r.goDirs() {
		if p := r.index.load(d); p != nil && (filepath.Base(d) == name || p.name == name) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// An archCheck is what checking the page learns as it goes: the packages the page names, the
// scope of each Layout row and section, what was checked, and the problems found.
type archCheck struct {
	page      string // the page's path, which each problem starts with
	spans     []archSpan
	repo      *archRepo
	index     archIndex           // repo's
	packages  map[string][]string // folders by their last element and by their package clause
	allDirs   []string            // every folder of packages, sorted
	scopes    map[int][]string    // a row's or a section's packages, by the row's or the heading's line
	counts    map[string]int      // how many spans of each kind were checked
	elsewhere []string            // names found in a package the page names no path of
	problems  []string
}

// checkArchitecture checks a page's code spans against the repository and returns its problems,
// each "page:line: what is wrong", and a summary of what it checked.
//
// The rule, span by span (fenced code is not read, nor a name the page marks as former):
//   - a path whose first folder is one of the repository's (pkg/, cmd/, internal/, karpenter/,
//     apis/, tools/, iac/, ...) exists as a file or a folder, <kind>-like placeholders standing
//     for any folder;
//   - pkg.Name and pkg.Type.Member are declared by a package the page names as pkg (by its
//     folder's last element or its package clause) or, when it names none, by a package of that
//     name anywhere in the repository; Type.Member is a field or method of such a type;
//   - a bare exported Go name (an upper-case first letter and a lower-case one after it, so that
//     PATH is not one) is declared in the packages of its Layout row or section, or outside them
//     in any package the page names;
//   - a bare file name (x.go, x.sh, x.json, x.yaml, x.proto) is the name of a file of the
//     repository.
//
// "Declared" is what the package's non-test files declare at top level (func, type, const, var)
// and its types' fields and methods, promoted ones included.
func checkArchitecture(page, text string, repo *archRepo) (problems []string, summary string) {
	c := &archCheck{
		page:     page,
		spans:    archSpans(text),
		repo:     repo,
		index:    repo.index,
		packages: map[string][]string{},
		scopes:   map[int][]string{},
		counts:   map[string]int{},
	}
	// The paths first, since the Go names are looked up in the packages they name.
	c.checkPaths()
	c.addRowFolders()
	c.collectAllDirs()
	c.collectScopes()
	for _, s := range c.spans {
		c.checkName(s)
	}
	return c.problems, c.summarize()
}

// fail records a problem of span s.
func (c *archCheck) fail(s archSpan, format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf("%s:%d: ", c.page, s.line)+fmt.Sprintf(format, args...))
}

func TestTheArchitecturePageNamesOnlyPackagesFilesAndFunctionsThatExist(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(archPage)))
	if err != nil {
		t.Fatal(err)
	}
	problems, summary := checkArchitecture(archPage, string(src), newArchRepo(t))
	for _, p := range problems {
		t.Error(p)
	}
	t.Log(summary)
}

// archMaxCell is the longest a table cell of the page may be, in characters: a longer entry is a
// section (a heading and a paragraph or a list) below its table.
const archMaxCell = 300

// archLongCells returns a problem for each table cell of text longer than archMaxCell. A row is a
// line outside fenced code that starts with "|"; its cells are what lies between its unescaped
// pipes, trimmed; a cell's length is its characters (runes) as written, Markdown included.
func archLongCells(page, text string) []string {
	var problems []string
	inFence := false
	for i, line := range strings.Split(text, "\n") {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		row := strings.TrimSpace(line)
		if inFence || !strings.HasPrefix(row, "|") {
			continue
		}
		for _, cell := range archCells(row) {
			if n := utf8.RuneCountInString(cell); n > archMaxCell {
				problems = append(problems, fmt.Sprintf("%s:%d: a table cell of %d characters, over %d: make it a section below the table (%.50s...)",
					page, i+1, n, archMaxCell, cell))
			}
		}
	}
	return problems
}

// archCells splits a table row into its cells, trimmed: at each pipe but one escaped as \|.
func archCells(row string) []string {
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	var cells []string
	start := 0
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++
		case '|':
			cells = append(cells, strings.TrimSpace(row[start:i]))
			start = i + 1
		}
	}
	return append(cells, strings.TrimSpace(row[start:]))
}

func TestNoTableCellOfTheArchitecturePageIsLongerThan300Characters(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(archPage)))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range archLongCells(archPage, string(src)) {
		t.Error(p)
	}
}

// checkPaths checks that each path of the page exists. Those that hold Go code are the packages
// the page names.
func (c *archCheck) checkPaths() {
	for _, s := range c.spans {
		if s.former || !archPath.MatchString(s.text) {
			continue
		}
		c.counts["paths"]++
		matches := archExpand(s.text)
		if len(matches) == 0 {
			c.fail(s, "`%s` names no file or folder of the repository", s.text)
		}
		for _, m := range matches {
			c.addPackage(m)
		}
	}
}

// addRowFolders adds the packages a Layout row names by bare folder names (`store` in the row of
// `pkg/serve/`): the page qualifies Go names by them as by full paths.
func (c *archCheck) addRowFolders() {
	for _, s := range c.spans {
		if s.row != "" && !s.former && archBareDir.MatchString(s.text) {
			for _, m := range archExpand(s.row + s.text) {
				c.addPackage(m)
			}
		}
	}
}

// addPackage records dir, if it holds Go code, under both its folder's last element and its
// package clause, since the page qualifies names by either.
func (c *archCheck) addPackage(dir string) {
	p := c.index.load(dir)
	if p == nil {
		return
	}
	for _, key := range []string{filepath.Base(dir), p.name} {
		if !contains(c.packages[key], dir) {
			c.packages[key] = append(c.packages[key], dir)
		}
	}
}

// collectAllDirs lists every package the page names once, where an unqualified name is looked up.
func (c *archCheck) collectAllDirs() {
	for _, dirs := range c.packages {
		for _, d := range dirs {
			if !contains(c.allDirs, d) {
				c.allDirs = append(c.allDirs, d)
			}
		}
	}
	sort.Strings(c.allDirs)
}

// collectScopes works out each Layout row's and section's scope once: a bare Go name in it is
// declared there (`Resolve` in the section of `pkg/cloudfacts/`).
func (c *archCheck) collectScopes() {
	for _, s := range c.spans {
		if s.row == "" {
			continue
		}
		if _, done := c.scopes[s.scope]; done {
			continue
		}
		c.scopes[s.scope] = c.scopeOf(s)
	}
}

// scopeOf is the packages under the folder of s's row or section, and those the paths written in
// that row or section name (a file's path standing for its folder).
func (c *archCheck) scopeOf(s archSpan) []string {
	scope := c.packagesUnder(s.row)
	for _, o := range c.spans {
		if o.scope != s.scope || o.former || !archPath.MatchString(o.text) {
			continue
		}
		for _, m := range archExpand(o.text) {
			if fi, err := os.Stat(m); err == nil && !fi.IsDir() {
				m = filepath.Dir(m)
			}
			if c.index.load(m) != nil && !contains(scope, filepath.Clean(m)) {
				scope = append(scope, filepath.Clean(m))
			}
		}
	}
	return scope
}

// packagesUnder is every folder holding Go code at or below the folders path names.
func (c *archCheck) packagesUnder(path string) []string {
	var dirs []string
	for _, top := range archExpand(path) {
		filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() && c.index.load(path) != nil {
				dirs = append(dirs, filepath.Clean(path))
			}
			return nil
		})
	}
	return dirs
}

// checkName checks one span by its form. A former name is not checked: the code no longer has it.
// A span of no form below (a command, a YAML key, a value) is not a name the test can resolve.
func (c *archCheck) checkName(s archSpan) {
	if s.former {
		c.counts["former names, not checked"]++
		return
	}
	// `*pipeline.PolicyDeniedError` names the type; `pipeline.Up(deploy.UpOptions{...})`, an
	// expression, names each package's function or type in it.
	s.text = strings.TrimPrefix(s.text, "*")
	if archCall.MatchString(s.text) {
		for _, m := range archInExpr.FindAllStringSubmatch(s.text, -1) {
			inner := s
			inner.text = m[1]
			c.checkName(inner)
		}
		return
	}
	switch m, mm := archQualified.FindStringSubmatch(s.text), archMember.FindStringSubmatch(s.text); {
	case m != nil:
		c.checkQualified(s, m[1], m[2], m[3])
	case mm != nil:
		c.checkMember(s, mm[1], mm[2])
	case archExported.MatchString(s.text) && s.row != "":
		c.counts["bare Go names in a Layout row or section"]++
		if !c.declaredIn(c.scopes[s.scope], s.text) {
			c.fail(s, "`%s` is declared neither under %s nor in a package its row or section names", s.text, s.row)
		}
	case archExported.MatchString(s.text):
		c.counts["bare Go names"]++
		if !c.declaredIn(c.allDirs, s.text) {
			c.fail(s, "`%s` is declared in none of the packages the page names", s.text)
		}
	case archFile.MatchString(s.text):
		c.counts["bare file names"]++
		if !c.repo.files[s.text] {
			c.fail(s, "`%s` is the name of no file of the repository", s.text)
		}
	}
}

// checkQualified checks pkg.Name and pkg.Type.Member (member empty for the first) in the packages
// the page names pkg or, when it names none, in the repository's packages of that name. A name of
// a package outside the repository (`http.Client`) fails: the page maps this repository's code.
func (c *archCheck) checkQualified(s archSpan, pkg, name, member string) {
	c.counts["qualified names"]++
	dirs := c.packages[pkg]
	if len(dirs) == 0 {
		if dirs = c.repo.packagesNamed(pkg); len(dirs) == 0 {
			c.fail(s, "`%s`: the repository has no package %s", s.text, pkg)
			return
		}
		c.elsewhere = append(c.elsewhere, s.text)
	}
	if !c.declares(dirs, name) {
		c.fail(s, "`%s`: %s declares no %s", s.text, rel(dirs), name)
		return
	}
	if member == "" {
		return
	}
	if has, known := c.typeHas(dirs, name, member); known && !has {
		c.fail(s, "`%s`: %s.%s has no field or method %s", s.text, pkg, name, member)
	}
}

// checkMember checks Type.Member against the packages the page names or, when none of them
// declares Type, against every package of the repository.
func (c *archCheck) checkMember(s archSpan, typ, member string) {
	c.counts["type members"]++
	has, known := c.typeHas(c.allDirs, typ, member)
	if !known {
		if has, known = c.typeHas(c.repo.goDirs(), typ, member); !known {
			c.fail(s, "`%s`: the repository declares no type %s", s.text, typ)
			return
		}
		c.elsewhere = append(c.elsewhere, s.text)
	}
	if !has {
		c.fail(s, "`%s`: no type %s has a field or method %s", s.text, typ, member)
	}
}

// declares tells whether any of dirs declares name at top level.
func (c *archCheck) declares(dirs []string, name string) bool {
	for _, d := range dirs {
		if p := c.index.load(d); p != nil && p.names[name] {
			return true
		}
	}
	return false
}

// typeHas tells whether a type name of any of dirs has member; known, whether any declares it.
func (c *archCheck) typeHas(dirs []string, name, member string) (has, known bool) {
	for _, d := range dirs {
		if p := c.index.load(d); p != nil && p.types[name] != nil {
			known = true
			if c.index.hasMember(d, name, member, 0) {
				return true, true
			}
		}
	}
	return false, known
}

// declaredIn tells whether a package of dirs declares name or a type of one has it as a member,
// since the page writes a method or a field bare too.
func (c *archCheck) declaredIn(dirs []string, name string) bool {
	if c.declares(dirs, name) {
		return true
	}
	for _, d := range dirs {
		if p := c.index.load(d); p != nil {
			for tn := range p.types {
				if c.index.hasMember(d, tn, name, 0) {
					return true
				}
			}
		}
	}
	return false
}

// summarize says how much was checked and what was found outside the packages the page names,
// so that a reader sees the test did not pass by checking nothing.
func (c *archCheck) summarize() string {
	var counts []string
	for k, v := range c.counts {
		counts = append(counts, k+": "+strconv.Itoa(v))
	}
	sort.Strings(counts)
	summary := fmt.Sprintf("%d code spans; %d packages named; checked %s", len(c.spans), len(c.allDirs), strings.Join(counts, ", "))
	if len(c.elsewhere) > 0 {
		summary += "; found in a package the page names no path of: " + strings.Join(c.elsewhere, " ")
	}
	return summary
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

func TestTheArchitectureChecksFailOnANameTheCodeDoesNotHaveAndOnALongCell(t *testing.T) {
	repo := newArchRepo(t)
	tests := []struct {
		name, page string
		want       string // a part of the one problem expected; "" for none
	}{
		{"a package that does not exist", "See `pkg/cloud/nosuchpackage`.\n",
			"`pkg/cloud/nosuchpackage` names no file or folder"},
		{"a function in the wrong package", "`pkg/cloud/cloudapi` holds the rule, `cloudapi.Resolve`.\n",
			"pkg/cloud/cloudapi declares no Resolve"},
		{"a bare name outside its section's packages", "### `pkg/cloud/cloudapi/`\n\nThe rule is `Resolve`.\n",
			"`Resolve` is declared neither under pkg/cloud/cloudapi/"},
		{"a member its type does not have", "`pkg/cloud/cloudapi`: `cloudapi.Client.Resolve`.\n",
			"cloudapi.Client has no field or method Resolve"},
		{"a package the repository does not have", "`nosuchpkg.Thing` does it.\n",
			"the repository has no package nosuchpkg"},
		{"a type the repository does not have", "`NoSuchType.Field` holds it.\n",
			"the repository declares no type NoSuchType"},
		{"a file that does not exist", "It is in `nosuchfile.go`.\n",
			"`nosuchfile.go` is the name of no file"},
		{"a name in a call", "`pkg/deploy/pipeline` runs `pipeline.Up(deploy.NoSuchOptions{...})`.\n",
			"declares no NoSuchOptions"},
		{"a cell over 300 characters", "| a | b |\n|---|---|\n| x | " + strings.Repeat("y", 301) + " |\n",
			"a table cell of 301 characters"},
		{"a name found in a package the page names no path of", "`replace.Allowed` says which.\n", ""},
		{"a former name", "It is `cloudfacts.Env.Resolve` (was `cloudapi.Resolve`).\n", ""},
		{"an escaped pipe, which ends no cell", "| a | b |\n|---|---|\n| x | " + strings.Repeat("y\\|", 101) + " |\n",
			"a table cell of 303 characters"},
		{"cells of 300 characters at most", "| a | b |\n|---|---|\n| " + strings.Repeat("y", 300) + " | " + strings.Repeat("z", 300) + " |\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems, _ := checkArchitecture("page.md", tt.page, repo)
			problems = append(problems, archLongCells("page.md", tt.page)...)
			switch {
			case tt.want == "" && len(problems) > 0:
				t.Errorf("problems %q, want none", problems)
			case tt.want != "" && (len(problems) != 1 || !strings.Contains(problems[0], tt.want)):
				t.Errorf("problems %q, want one saying %q", problems, tt.want)
			}
		})
	}
}
