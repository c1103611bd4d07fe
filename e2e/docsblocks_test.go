//go:build e2e

package e2e_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestDocsShellBlocksRunAsWritten runs the shell blocks (```sh, ```bash, ```console) of README.md
// and docs/*.md that call clusterplane, bin/clusterplane or curl, as a reader on a fresh clone
// would type them, and compares what they print where the page shows it. The conventions it
// reads are in docs/contributing.md ("Shell blocks in the docs are run"):
//
//   - Each page is one terminal session in a fresh copy of the working tree (git's files, bin/
//     with clusterplane and its plugin as `make build` leaves them, .engine linked): its blocks
//     run in order, each with `bash -e`, the shell's variables, functions and folder carried from
//     one block to the next. The environment is a new user's: no cloud token, no Pulumi variable,
//     HOME and TMPDIR of the page, no clusterplane on PATH. The sandbox is whatever the blocks
//     start in that copy: a new one per page.
//   - `git clone https://github.com/clusterplane/clusterplane` is that copy, in a folder named
//     clusterplane. `go build -o OUT PKG...` and `go run PKG ARGS...` in it build the same
//     packages from the repository (Go's build cache answers them, not a copy's new paths).
//   - Markers, on the line before a block's fence (blank or comment lines may come between):
//     `<!-- docs-test: skip: REASON -->` leaves a block out, saying why;
//     `<!-- docs-test: run -->` runs a block that calls neither (setting a variable a later block uses);
//     `<!-- docs-test: background until "TEXT" -->` leaves the block running (a server) once it
//     printed TEXT, for the rest of the page, then stops it as Ctrl-C does;
//     `<!-- docs-test: file NAME -->` writes the block (any language) to NAME in the copy first.
//   - Expected output: the `# ` lines right under a command, up to a blank line or the next
//     command, are what it prints; a ```text block right after a block (blank lines between) is
//     what the whole block prints. Each shown line must appear, in order, in what it printed
//     (stdout and stderr together): spaces are collapsed, and dropped beside JSON's {}[]:, (so a
//     pretty-printed line matches compact JSON), `...` matches anything, and a UUID, an API
//     token (cpt_...), a 16-hex-digit ID or an RFC 3339 time matches any of its form.
//   - A command exits 0 unless the comment on its (last) line starts `# exit N`.
//
// Promise: docs-block-command-exits-zero-or-n
func TestDocsShellBlocksRunAsWritten(t *testing.T) {
	t.Parallel()
	providerPlugins(t) // skips, saying why, without the plugins
	if _, err := exec.LookPath("jq"); err != nil {
		t.Fatal("the docs' blocks pipe the API's answers through jq, as a reader does: install jq")
	}
	pages := docPages(t)
	bin := binaries(t)
	base, err := os.MkdirTemp("", "clusterplane-docs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	shim := docsGoShim(t, base, bin)
	env := docsEnv(t, shim)

	var mu sync.Mutex
	var summary []string
	t.Cleanup(func() {
		slices.Sort(summary)
		t.Logf("docs blocks:\n%s", strings.Join(summary, "\n"))
	})
	for _, page := range pages {
		t.Run(filepath.Base(page.file), func(t *testing.T) {
			line := page.summary()
			mu.Lock()
			summary = append(summary, line)
			mu.Unlock()
			if page.toRun() == 0 {
				return
			}
			t.Parallel()
			runDocPage(t, page, base, bin, env)
		})
	}
}

// docBlock is a fenced block of a Markdown page.
type docBlock struct {
	file  string
	line  int // the opening fence's line, from 1
	lang  string
	lines []string
	// markers are the docs-test markers before the fence.
	markers []string
	// skip is the skip marker's reason; run and background (its TEXT) the other markers'.
	skip       string
	run        bool
	background string
	// calls says it calls clusterplane, bin/clusterplane or curl.
	calls bool
	// expected is the ```text block right after it, if any, and that block's fence line.
	expected     []string
	expectedLine int
}

func (b *docBlock) shell() bool {
	return b.lang == "sh" || b.lang == "bash" || b.lang == "console" || b.lang == "shell"
}

func (b *docBlock) runs() bool {
	return b.shell() && b.skip == "" && (b.calls || b.run || b.background != "")
}

func (b *docBlock) where() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

// docPage is a Markdown file's blocks and the files its markers write.
type docPage struct {
	file   string
	blocks []*docBlock
	files  map[string]string
}

func (p *docPage) toRun() int {
	n := 0
	for _, b := range p.blocks {
		if b.runs() {
			n++
		}
	}
	return n
}

// summary is a line saying what ran, what was skipped and why, and what calls neither.
func (p *docPage) summary() string {
	ran, quiet := 0, 0
	skipped := map[string]int{}
	for _, b := range p.blocks {
		switch {
		case !b.shell():
		case b.runs():
			ran++
		case b.skip != "":
			skipped[b.skip]++
		default:
			quiet++
		}
	}
	n := 0
	var reasons []string
	for r, c := range skipped {
		n += c
		reasons = append(reasons, fmt.Sprintf("%d: %s", c, r))
	}
	slices.Sort(reasons)
	s := fmt.Sprintf("%s: %d ran, %d skipped, %d call neither clusterplane nor curl", p.file, ran, n, quiet)
	for _, r := range reasons {
		s += "\n    skipped " + r
	}
	return s
}

var (
	fenceOpen  = regexp.MustCompile("^( *)(`{3,}|~{3,})\\s*([A-Za-z0-9_+-]*)")
	markerLine = regexp.MustCompile(`^\s*(<!--.*?-->\s*)+$`)
	docsMarker = regexp.MustCompile(`<!--\s*docs-test:\s*(.*?)\s*-->`)
	// strayMarker is a marker on a line of its own (not one quoted in the text, as contributing.md does).
	strayMarker = regexp.MustCompile(`^\s*<!--\s*docs-test:`)
	background  = regexp.MustCompile(`^background until "(.+)"$`)
	// callWord is clusterplane, bin/clusterplane or curl in a command's place: first on the line or
	// after ; & | ( $( <( { ` -- then do else, past VAR=value words.
	callWord = regexp.MustCompile("(?:^|[;&|({`]|\\$\\(|<\\(|\\s--|\\bthen|\\bdo|\\belse|\\bexec|\\btime)\\s*(?:[A-Za-z_][A-Za-z0-9_]*=\\S*\\s+)*(?:\\./)?(?:bin/)?(?:clusterplane|curl)(?:$|[\\s;&|)`\"])")
)

// docPages reads README.md and docs/*.md.
func docPages(t *testing.T) []*docPage {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	var pages []*docPage
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		page, err := parseDocPage(filepath.ToSlash(rel), string(data))
		if err != nil {
			t.Error(err)
			continue
		}
		pages = append(pages, page)
	}
	return pages
}

// parseDocPage finds a page's fenced blocks, their markers and their expected output.
func parseDocPage(file, text string) (*docPage, error) {
	lines := strings.Split(text, "\n")
	page := &docPage{file: file, files: map[string]string{}}
	var problems []string
	used := map[int]bool{} // the lines of markers a block took
	var last *docBlock
	lastEnd := -1
	for i := 0; i < len(lines); i++ {
		m := fenceOpen.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		indent, fence, lang := len(m[1]), m[2], m[3]
		b := &docBlock{file: file, line: i + 1, lang: lang}
		j := i + 1
		for ; j < len(lines); j++ {
			l := strings.TrimLeft(lines[j], " ")
			if strings.HasPrefix(l, fence[:3]) && strings.TrimSpace(strings.TrimLeft(l, fence[:1])) == "" &&
				len(l)-len(strings.TrimLeft(l, fence[:1])) >= len(fence) {
				break
			}
			content := lines[j]
			for k := 0; k < indent && strings.HasPrefix(content, " "); k++ {
				content = content[1:]
			}
			b.lines = append(b.lines, content)
		}
		// The markers: the comment lines (and blank ones) right before the fence.
		for k := i - 1; k >= 0 && (strings.TrimSpace(lines[k]) == "" || markerLine.MatchString(lines[k])); k-- {
			for _, mm := range docsMarker.FindAllStringSubmatch(lines[k], -1) {
				b.markers = append(b.markers, mm[1])
				used[k] = true
			}
		}
		for _, mk := range b.markers {
			switch {
			case strings.HasPrefix(mk, "skip:") && strings.TrimSpace(mk[len("skip:"):]) != "":
				b.skip = strings.TrimSpace(mk[len("skip:"):])
			case mk == "run":
				b.run = true
			case background.MatchString(mk):
				b.background = background.FindStringSubmatch(mk)[1]
			case strings.HasPrefix(mk, "file "):
				name := strings.TrimSpace(mk[len("file "):])
				if name == "" || filepath.IsAbs(name) || strings.Contains(name, "..") {
					problems = append(problems, fmt.Sprintf("%s: the file marker names %q: give a name in the working folder", b.where(), name))
				}
				page.files[name] = strings.Join(b.lines, "\n") + "\n"
			default:
				problems = append(problems, fmt.Sprintf("%s: unknown marker <!-- docs-test: %s --> (skip: REASON, run, background until \"TEXT\", file NAME)", b.where(), mk))
			}
		}
		if (b.run || b.background != "" || b.skip != "") && !b.shell() {
			problems = append(problems, fmt.Sprintf("%s: a %q block cannot be run or skipped, only a shell block", b.where(), lang))
		}
		if b.shell() {
			b.calls = callsClusterplaneOrCurl(b.commandLines())
		}
		// A ```text block right after a shell block is what it prints.
		if lang == "text" && last != nil && last.shell() && lastEnd >= 0 {
			between := lines[lastEnd+1 : i]
			if strings.TrimSpace(strings.Join(between, "")) == "" {
				last.expected, last.expectedLine = b.lines, b.line
			}
		}
		page.blocks = append(page.blocks, b)
		last, lastEnd = b, j
		i = j
	}
	for k, l := range lines {
		if strayMarker.MatchString(l) && !used[k] {
			problems = append(problems, fmt.Sprintf("%s:%d: a docs-test marker that no block follows: %s", file, k+1, strings.TrimSpace(l)))
		}
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "\n"))
	}
	return page, nil
}

// commandLines are the block's lines as a shell reads them: a console block's commands (lines
// after `$ `, and their continuation lines), with its output lines turned into `# ` lines.
func (b *docBlock) commandLines() []string {
	if b.lang != "console" {
		return b.lines
	}
	var out []string
	continued := false
	for _, l := range b.lines {
		switch {
		case strings.HasPrefix(l, "$ "):
			out = append(out, l[2:])
			continued = strings.HasSuffix(l, "\\")
		case continued:
			out = append(out, l)
			continued = strings.HasSuffix(l, "\\")
		case strings.TrimSpace(l) == "":
			out = append(out, "#")
		default:
			out = append(out, "# "+l)
		}
	}
	return out
}

// callsClusterplaneOrCurl says whether a line, its comment left out, calls one of them.
func callsClusterplaneOrCurl(lines []string) bool {
	for i, l := range lines {
		if c := commentStarts(lines)[i]; c >= 0 {
			l = l[:c]
		}
		if callWord.MatchString(strings.TrimSpace(l)) {
			return true
		}
	}
	return false
}

// commentStarts is, for each line, where its comment starts (-1: none), quotes followed across
// lines.
func commentStarts(lines []string) []int {
	out := make([]int, len(lines))
	var quote byte
	for i, l := range lines {
		out[i] = -1
		for k := 0; k < len(l); k++ {
			c := l[k]
			switch {
			case quote == '\'':
				if c == '\'' {
					quote = 0
				}
			case c == '\\':
				k++
			case quote == '"':
				if c == '"' {
					quote = 0
				}
			case c == '\'' || c == '"':
				quote = c
			case c == '#' && (k == 0 || l[k-1] == ' ' || l[k-1] == '\t'):
				out[i] = k
			}
			if out[i] >= 0 {
				break
			}
		}
	}
	return out
}

// docCommand is a command of a block: its lines, the exit code its comment asks, and the `# `
// lines under it.
type docCommand struct {
	first, last int // indexes into the block's lines
	exit        int
	expected    []string
}

var exitComment = regexp.MustCompile(`^#\s*exit (\d+)\b`)

// splitCommands splits a block into its commands: a command goes on until bash reads it whole.
func splitCommands(lines []string) []docCommand {
	comments := commentStarts(lines)
	var out []docCommand
	for i := 0; i < len(lines); {
		trimmed := strings.TrimSpace(lines[i])
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			i++
			continue
		}
		j := i
		for j+1 < len(lines) && !shellComplete(lines[i:j+1]) {
			j++
		}
		c := docCommand{first: i, last: j}
		if k := comments[j]; k >= 0 {
			if m := exitComment.FindStringSubmatch(lines[j][k:]); m != nil {
				c.exit, _ = strconv.Atoi(m[1])
			}
		}
		k := j + 1
		for ; k < len(lines) && (lines[k] == "#" || strings.HasPrefix(lines[k], "# ")); k++ {
			c.expected = append(c.expected, strings.TrimPrefix(strings.TrimPrefix(lines[k], "#"), " "))
		}
		out = append(out, c)
		i = k
	}
	return out
}

// shellComplete says whether bash reads lines as whole commands: no open quote, loop or
// continuation.
func shellComplete(lines []string) bool {
	lastLine := strings.TrimRight(lines[len(lines)-1], " \t")
	if c := commentStarts(lines)[len(lines)-1]; c < 0 && strings.HasSuffix(lastLine, "\\") {
		return false
	}
	return exec.Command("bash", "-n", "-c", strings.Join(lines, "\n")).Run() == nil
}

// cloneLine is the quickstart's clone, which the test's copy stands for.
const cloneLine = "git clone https://github.com/clusterplane/clusterplane"

// blockScript is the block as a bash script whose lines are the page's: line 1 restores the
// session (state) and sets the traps, the block's lines follow at their own line numbers. Each
// command first prints a marker line (\x1e and its line) that splits what was printed.
func blockScript(b *docBlock, state, parent string) string {
	lines := b.commandLines()
	cmds := splitCommands(lines)
	body := slices.Clone(lines)
	for i, l := range body {
		if strings.HasPrefix(strings.TrimSpace(l), cloneLine) {
			body[i] = strings.Replace(l, cloneLine, "cd "+shellQuote(parent), 1)
		}
	}
	comments := commentStarts(lines)
	for _, c := range cmds {
		docLine := b.line + 1 + c.first
		prefix := fmt.Sprintf("printf '\\n\\036%d\\n'; ", docLine)
		if c.exit != 0 {
			prefix += "__docs_status=0; { "
			lastLine := body[c.last]
			if k := comments[c.last]; k >= 0 {
				lastLine = lastLine[:k]
			}
			body[c.last] = lastLine + fmt.Sprintf(" ; } || __docs_status=$?; __docs_exit %d %d \"$__docs_status\"", c.exit, docLine)
		}
		body[c.first] = prefix + body[c.first]
	}
	preamble := strings.Join([]string{
		`__docs_state=` + shellQuote(state),
		`__docs_env0=$(compgen -e)`,
		`__docs_save() { local __docs_n __docs_d __docs_f; { printf 'cd -- %q\n' "$PWD"; ` +
			`for __docs_n in $(compgen -v); do case $__docs_n in __docs*|BASH*|EUID|PPID|SHELLOPTS|UID|FUNCNAME|GROUPS|PIPESTATUS|RANDOM|SRANDOM|SECONDS|LINENO|EPOCHREALTIME|EPOCHSECONDS|HISTCMD|SHLVL|_|DIRSTACK|OPTIND|OPTARG|OPTERR|PWD|OLDPWD|IFS|PS4|COMP_WORDBREAKS|HOSTNAME|HOSTTYPE|MACHTYPE|OSTYPE) continue;; esac; ` +
			`__docs_d=$(declare -p "$__docs_n" 2>/dev/null) || continue; __docs_f=${__docs_d#declare -}; __docs_f=${__docs_f%% *}; case $__docs_f in *r*) continue;; esac; printf '%s\n' "$__docs_d"; done; ` +
			`for __docs_n in $__docs_env0; do [[ -v $__docs_n ]] || printf 'unset %s\n' "$__docs_n"; done; ` +
			`for __docs_n in $(compgen -A function); do case $__docs_n in __docs*) ;; *) declare -f "$__docs_n";; esac; done; ` +
			`} >"$__docs_state.new" && mv "$__docs_state.new" "$__docs_state"; }`,
		`__docs_exit() { [ "$3" = "$1" ] || { echo "docs-test: the command at line $2 exited $3; the doc says exit $1" >&2; exit 1; }; }`,
		`. "$__docs_state"`,
		`trap 'echo "docs-test: the command at line $LINENO exited $?" >&2' ERR`,
		`trap '__docs_rc=$?; __docs_save; exit $__docs_rc' EXIT`,
	}, "; ")
	return preamble + "\n" + strings.Repeat("\n", b.line-1) + strings.Join(body, "\n") + "\n"
}

// docsEnv is a new user's environment: no cloud credential, no Pulumi or clusterplane variable,
// no clusterplane on PATH, the go shim first.
func docsEnv(t *testing.T, shim string) []string {
	t.Helper()
	// HOME is the page's: Go's caches and settings, which follow HOME by default, stay the machine's.
	goVars := []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOENV"}
	var env []string
	for _, name := range goVars {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		env = append(env, name+"="+strings.TrimSpace(string(out)))
	}
	for _, kv := range os.Environ() {
		key, value, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(key, "DIGITALOCEAN_"), strings.HasPrefix(key, "CIVO_"), strings.HasPrefix(key, "SPACES_"),
			strings.HasPrefix(key, "PULUMI_"), strings.HasPrefix(key, "CLUSTERPLANE_"), slices.Contains(goVars, key),
			key == "HOME", key == "TMPDIR", key == "KUBECONFIG":
			continue
		case key == "PATH":
			dirs := []string{shim}
			for _, d := range filepath.SplitList(value) {
				if _, err := os.Stat(filepath.Join(d, "clusterplane")); err == nil {
					continue // a reader's PATH has none until the doc says how
				}
				dirs = append(dirs, d)
			}
			kv = "PATH=" + strings.Join(dirs, string(os.PathListSeparator))
		}
		env = append(env, kv)
	}
	return env
}

// docsGoShimScript is the `go` of the docs' blocks: `go build -o OUT PKG...` and `go run PKG
// ARGS...` run in a page's copy build the same package from the repository into a lasting file
// per package (Go relinks it only when its build ID says it is stale), then link it to OUT or
// run it, reporting a non-zero exit as go run does (exit status N, then 1). Built in the copy,
// every package would compile again (the copy's paths are new to Go's cache). Anything else,
// or a package outside the repository, is the real go's. %[1]s is the real go, %[2]s the pages'
// folder, %[3]s the repository, %[4]s the folder of the built programs.
const docsGoShimScript = `#!/usr/bin/env bash
# The go of the docs test's blocks: see docsGoShimScript in e2e/docsblocks_test.go.
real=%[1]s pages=%[2]s root=%[3]s programs=%[4]s
here=$(pwd -P)
case "$here/" in "$pages"/*/clusterplane/*) ;; *) exec "$real" "$@";; esac
page=${here#"$pages"/}; page=${page%%%%/*}
copy=$pages/$page/clusterplane
rel=${here#"$copy"}
# program PKG: builds PKG into $programs and sets $built; returns 2 for a package outside the
# repository, and exits when the build fails.
program() {
	local dir key
	dir=$(cd "$root$rel" 2>/dev/null && cd "$1" 2>/dev/null && pwd -P) || return 2
	case "$dir/" in "$root"/*) ;; *) return 2;; esac
	key=${dir#"$root"}; key=${key#/}; key=${key//\//_}
	mkdir -p "$programs/$key"
	built=$programs/$key/$(basename "$dir")
	( flock 9 2>/dev/null; cd "$root" && "$real" build -o "$built" "./${dir#"$root"/}" ) 9>>"$programs/$key.lock" || exit 1
}
case "$1" in
build)
	[ "$2" = -o ] && [ $# -ge 4 ] || exec "$real" "$@"
	out=$3
	shift 3
	for p in "$@"; do case "$p" in -*) exec "$real" build -o "$out" "$@";; esac; done
	for p in "$@"; do
		program "$p" || exec "$real" build -o "$out" "$@"
		dest=$out
		if [ -d "$out" ] || [ "${out%%/}" != "$out" ]; then mkdir -p "$out"; dest=${out%%/}/$(basename "$built"); fi
		rm -f "$dest" && { ln "$built" "$dest" 2>/dev/null || cp "$built" "$dest"; } || exit
	done;;
run)
	[ $# -ge 2 ] && [ "${2#-}" = "$2" ] || exec "$real" "$@"
	p=$2
	shift 2
	program "$p" || exec "$real" run "$p" "$@"
	"$built" "$@" || { rc=$?; echo "exit status $rc" >&2; exit 1; };;
*)
	exec "$real" "$@";;
esac
`

// docsGoShim writes the go shim into base/go and returns its folder; the programs it builds start
// from the binaries the test built (clusterplane and its plugin), which Go finds up to date.
func docsGoShim(t *testing.T, base, bin string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	goBin, _ = filepath.Abs(goBin)
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	dir, programs := filepath.Join(base, "go"), filepath.Join(base, "go", "programs")
	pages, _ := filepath.EvalSymlinks(base)
	for name, pkg := range map[string]string{"clusterplane": "cmd_clusterplane", "pulumi-resource-clusterplane": "cmd_pulumi-resource-clusterplane"} {
		if err := os.MkdirAll(filepath.Join(programs, pkg), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := linkOrCopy(filepath.Join(bin, name), filepath.Join(programs, pkg, name)); err != nil {
			t.Fatal(err)
		}
	}
	script := fmt.Sprintf(docsGoShimScript, shellQuote(goBin), shellQuote(pages), shellQuote(realRoot), shellQuote(programs))
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func linkOrCopy(from, to string) error {
	if err := os.Link(from, to); err == nil {
		return nil
	}
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o755)
}

// copyWorkingTree copies git's files of the repository, as they are now, into dir, links .engine
// and puts clusterplane and its plugin into bin/, as `make build` does.
func copyWorkingTree(t *testing.T, dir, bin string) {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		from := filepath.Join(root, name)
		info, err := os.Lstat(from)
		if err != nil || info.IsDir() {
			continue // deleted in the working tree, or a submodule
		}
		to := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if info.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(from)
			err = os.Symlink(target, to)
		} else {
			var data []byte
			if data, err = os.ReadFile(from); err == nil {
				err = os.WriteFile(to, data, info.Mode().Perm())
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, ".engine"), filepath.Join(dir, ".engine")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"clusterplane", "pulumi-resource-clusterplane"} {
		if err := linkOrCopy(filepath.Join(bin, name), filepath.Join(dir, "bin", name)); err != nil {
			t.Fatal(err)
		}
	}
}

// docProcess is a block's bash, in a process group of its own.
type docProcess struct {
	block *docBlock
	cmd   *exec.Cmd
	out   string
	done  chan error
}

// runDocPage runs a page's blocks in order in a fresh copy of the working tree.
func runDocPage(t *testing.T, page *docPage, base, bin string, env []string) {
	pageDir := filepath.Join(base, strings.NewReplacer("/", "_", ".", "_").Replace(page.file))
	copyDir, home, tmp := filepath.Join(pageDir, "clusterplane"), filepath.Join(pageDir, "home"), filepath.Join(pageDir, "tmp")
	for _, d := range []string{copyDir, home, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyWorkingTree(t, copyDir, bin)
	for name, text := range page.files {
		if err := os.WriteFile(filepath.Join(copyDir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env = append(slices.Clone(env), "HOME="+home, "TMPDIR="+tmp)
	state := filepath.Join(pageDir, "session")
	if err := os.WriteFile(state, []byte("cd -- "+shellQuote(copyDir)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	var started []*docProcess
	t.Cleanup(func() { stopDocProcesses(t, started, copyDir, env) })
	for i, b := range page.blocks {
		if !b.runs() {
			continue
		}
		script := filepath.Join(pageDir, fmt.Sprintf("block%d.sh", i))
		if err := os.WriteFile(script, []byte(blockScript(b, state, pageDir)), 0o644); err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		p := startDocBlock(t, b, script, filepath.Join(pageDir, fmt.Sprintf("block%d.out", i)), copyDir, env)
		started = append(started, p)
		if b.background != "" {
			if !waitForText(p, b.background, 3*time.Minute) {
				stopDocProcesses(t, []*docProcess{p}, "", nil)
				t.Fatalf("%s: the block did not print %q (its marker's TEXT) before it ended or 3 minutes passed:\n%s",
					b.where(), b.background, printed(p.out))
			}
			continue
		}
		var err error
		select {
		case err = <-p.done:
		case <-time.After(6 * time.Minute):
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			err = fmt.Errorf("still running after 6 minutes: %v", <-p.done)
		}
		if err != nil {
			t.Fatalf("%s: the block failed (%v); it printed:\n%s", b.where(), err, printed(p.out))
		}
		t.Logf("%s: ran in %s", b.where(), time.Since(began).Round(100*time.Millisecond))
		checkDocOutput(t, b, p.out)
	}
	// The servers stop as Ctrl-C stops them; what they printed is checked then.
	for _, p := range started {
		if p.block.background == "" {
			continue
		}
		if err := interrupt(p); err != nil {
			t.Errorf("%s: after Ctrl-C (SIGINT to its process group): %v", p.block.where(), err)
		}
		checkDocOutput(t, p.block, p.out)
	}
}

func startDocBlock(t *testing.T, b *docBlock, script, out, dir string, env []string) *docProcess {
	t.Helper()
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command("bash", "-e", script)
	cmd.Dir, cmd.Env = dir, env
	// One file for both: the order of what was printed is kept, as a terminal shows it; and a
	// program left running in the background does not keep the test waiting for a pipe.
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", b.where(), err)
	}
	p := &docProcess{block: b, cmd: cmd, out: out, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	return p
}

// waitForText waits until the block printed text; false when it ended first or time ran out.
func waitForText(p *docProcess, text string, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(p.out)
		if bytes.Contains(data, []byte(text)) {
			return true
		}
		select {
		case err := <-p.done:
			p.done <- err
			data, _ := os.ReadFile(p.out)
			return bytes.Contains(data, []byte(text))
		case <-time.After(200 * time.Millisecond):
		}
	}
	return false
}

// interrupt sends SIGINT to a block's process group, as Ctrl-C does, and waits for its bash.
func interrupt(p *docProcess) error {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGINT)
	select {
	case err := <-p.done:
		p.done <- err
		return nil
	case <-time.After(time.Minute):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		p.done <- <-p.done
		return errors.New("still running a minute later")
	}
}

// stopDocProcesses ends what a page left running: its blocks' process groups, the sandbox a
// block started in the background, then any process still naming the copy.
func stopDocProcesses(t *testing.T, started []*docProcess, copyDir string, env []string) {
	for _, p := range started {
		pgid := p.cmd.Process.Pid
		if syscall.Kill(-pgid, 0) != nil {
			continue
		}
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		for i := 0; i < 50 && syscall.Kill(-pgid, 0) == nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	if copyDir == "" {
		return
	}
	stop := exec.Command(filepath.Join(copyDir, "bin", "clusterplane"), "sandbox", "stop")
	stop.Dir, stop.Env = copyDir, env
	_ = stop.Run()
	for _, line := range processesNaming(copyDir) {
		t.Logf("still running after the page, ended: %s", line)
	}
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, path := range cmdlines {
		if data, err := os.ReadFile(path); err == nil && bytes.Contains(data, []byte(copyDir)) {
			if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(path))); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

// checkDocOutput compares what a block printed with what its page shows.
func checkDocOutput(t *testing.T, b *docBlock, out string) {
	t.Helper()
	data, _ := os.ReadFile(out)
	segments := map[int]string{} // what each command printed, by its first line
	whole := ""
	current := -1
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "\x1e") {
			current, _ = strconv.Atoi(l[1:])
			continue
		}
		segments[current] += l + "\n"
		whole += l + "\n"
	}
	for _, c := range splitCommands(b.commandLines()) {
		if len(c.expected) == 0 {
			continue
		}
		line := b.line + 1 + c.first
		if missing, ok := matchShown(c.expected, segments[line]); !ok {
			t.Errorf("%s:%d: the command printed no line matching %q (the `# ` lines under it); it printed:\n%s",
				b.file, line, missing, segments[line])
		}
	}
	if b.expected != nil {
		if missing, ok := matchShown(b.expected, whole); !ok {
			t.Errorf("%s:%d: the block printed no line matching %q (the ```text block at line %d), in order; it printed:\n%s",
				b.file, b.line, missing, b.expectedLine, whole)
		}
	}
}

// printed is what a block printed, its marker lines left out, the last 150 lines.
func printed(out string) string {
	data, _ := os.ReadFile(out)
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(l, "\x1e") {
			lines = append(lines, l)
		}
	}
	if len(lines) > 150 {
		lines = append([]string{"..."}, lines[len(lines)-150:]...)
	}
	return strings.Join(lines, "\n")
}

var (
	spaces      = regexp.MustCompile(`\s+`)
	jsonSpacing = regexp.MustCompile(` ?([{}\[\]:,]) ?`)
	// shapes are the values a run chooses: a UUID, an API token, an RFC 3339 time, a 16-hex-digit ID.
	shapes = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|cpt_[0-9a-f]{16}_[0-9a-f]+|` +
		`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)|[0-9a-f]{16}`)
)

// normalizeShown collapses spaces and drops them beside JSON's punctuation.
func normalizeShown(s string) string {
	return jsonSpacing.ReplaceAllString(spaces.ReplaceAllString(strings.TrimSpace(s), " "), "$1")
}

// shownPattern is a shown line as a pattern: `...` is anything, a value of a shape any of its shape.
func shownPattern(line string) *regexp.Regexp {
	var re strings.Builder
	for i, part := range strings.Split(normalizeShown(line), "...") {
		if i > 0 {
			re.WriteString(".*?")
		}
		at := 0
		for _, m := range shapes.FindAllStringIndex(part, -1) {
			re.WriteString(regexp.QuoteMeta(part[at:m[0]]))
			switch v := part[m[0]:m[1]]; {
			case strings.HasPrefix(v, "cpt_"):
				re.WriteString(`cpt_[0-9a-f]{16}_[0-9a-f]+`)
			case strings.Contains(v, "T") && strings.Contains(v, ":"):
				re.WriteString(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)`)
			case len(v) == 36:
				re.WriteString(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
			default:
				re.WriteString(`[0-9a-f]{16}`)
			}
			at = m[1]
		}
		re.WriteString(regexp.QuoteMeta(part[at:]))
	}
	return regexp.MustCompile(re.String())
}

// matchShown says whether every shown line appears in output, in order (several may share one
// output line, as pretty-printed JSON does a compact line); else the first that does not.
func matchShown(shown []string, output string) (string, bool) {
	var lines []string
	for _, l := range strings.Split(output, "\n") {
		if n := normalizeShown(l); n != "" {
			lines = append(lines, n)
		}
	}
	li, col := 0, 0
	for _, s := range shown {
		if n := normalizeShown(s); n == "" || n == "..." {
			continue
		}
		re := shownPattern(s)
		found := false
		for ; li < len(lines); li, col = li+1, 0 {
			if loc := re.FindStringIndex(lines[li][col:]); loc != nil {
				col += loc[1]
				found = true
				break
			}
		}
		if !found {
			return s, false
		}
	}
	return "", true
}

// TestDocsBlocksConventions checks the parsing and matching the docs test relies on, without the
// engine.
// Promise: docs-block-command-exits-zero-or-n
func TestDocsBlocksConventions(t *testing.T) {
	page, err := parseDocPage("x.md", strings.Join([]string{
		"Text.",
		"",
		"<!-- docs-test: skip: needs a real DigitalOcean account -->",
		"```sh",
		"clusterplane up x.yaml --yes",
		"```",
		"",
		"```sh",
		"git clone https://github.com/clusterplane/clusterplane && cd clusterplane",
		"make sandbox",
		"```",
		"<!-- promise: some-id -->",
		"<!-- docs-test: run -->",
		"",
		"```sh",
		"API=http://127.0.0.1:8080",
		"```",
		"",
		"```sh",
		`curl -s "$API/x" | jq .   # exit 3: why`,
		"# {",
		"# ...",
		"",
		"# a remark",
		"for i in 1 2; do",
		"  echo $i",
		"done",
		"```",
		"",
		"```text",
		"HTTP/1.1 200 OK",
		"```",
	}, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	b := page.blocks
	if len(b) != 5 || b[0].skip != "needs a real DigitalOcean account" || b[0].runs() || b[1].runs() || !b[2].runs() || !b[3].runs() {
		t.Fatalf("blocks: %+v", b)
	}
	if b[3].expected == nil || b[3].expected[0] != "HTTP/1.1 200 OK" {
		t.Errorf("the text block after the curl block is not its output: %+v", b[3])
	}
	cmds := splitCommands(b[3].lines)
	if len(cmds) != 2 || cmds[0].exit != 3 || !slices.Equal(cmds[0].expected, []string{"{", "..."}) || cmds[1].first != 5 || cmds[1].last != 7 {
		t.Errorf("commands: %+v", cmds)
	}
	if _, err := parseDocPage("y.md", "<!-- docs-test: skp: typo -->\n```sh\nclusterplane\n```\n<!-- docs-test: run -->\n\nText.\n"); err == nil ||
		!strings.Contains(err.Error(), "unknown marker") || !strings.Contains(err.Error(), "no block follows") {
		t.Errorf("a misspelt marker and a stray one: %v", err)
	}
	for _, c := range []struct {
		line string
		want bool
	}{
		{"cd clusterplane", false},
		{"go run ../../../cmd/clusterplane validate x", false},
		{"pulumi plugin install resource clusterplane 0.0.0 --file bin/pulumi-resource-clusterplane", false},
		{"make sandbox   # then clusterplane runs", false},
		{`eval "$(bin/clusterplane sandbox env)"`, true},
		{"clusterplane kubeconfig x.yaml -- kubectl get nodes", true},
		{"source <(clusterplane completion bash)", true},
		{"CLUSTERPLANE_POLICY=policy.yaml clusterplane up clusters/ --yes", true},
		{`id=$(curl -s -H "$auth" "$URL")`, true},
	} {
		if got := callsClusterplaneOrCurl([]string{c.line}); got != c.want {
			t.Errorf("callsClusterplaneOrCurl(%q) = %v, want %v", c.line, got, c.want)
		}
	}
	output := `HTTP/1.1 201 Created
Etag: "1"
Location: /api/v1/clusters/935c2b31-d456-46fe-81d2-cfb1475f302f

{"id":"935c2b31-d456-46fe-81d2-cfb1475f302f","name":"demo-fra1","spec":{"platform":{"type":"digitalocean","digitalocean":{"region":"fra1"}}},"generation":1,"created_at":"2026-11-28T07:54:58.19695165Z","created_by":"afecfe1933aa6315"}
cpt_afecfe1933aa6315_85184a6af5d7209a
`
	shown := []string{"HTTP/1.1 201 Created", `Etag: "1"`, "Location: /api/v1/clusters/9a46c708-72b4-41eb-9d37-da3a39d4758a", "", "{",
		`  "id": "9a46c708-72b4-41eb-9d37-da3a39d4758a",`, `  "spec": { "platform": { "type": "digitalocean", "digitalocean": { ... } } },`,
		`  "generation": 1,`, `  "created_at": "2026-11-26T02:10:08.233788Z",`, `  "created_by": "939a8f6923e33f3f"`, "}", "cpt_d370240437964d46_6adcf307..."}
	if missing, ok := matchShown(shown, output); !ok {
		t.Errorf("the pretty-printed answer does not match the compact one at %q", missing)
	}
	for _, wrong := range [][]string{{`Etag: "2"`}, {`"generation": 1,`, `"name": "demo-fra1",`}, {"Location: /api/v1/nodepools/..."}} {
		if _, ok := matchShown(wrong, output); ok {
			t.Errorf("%q matched, want a mismatch", wrong)
		}
	}
}
