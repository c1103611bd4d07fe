// Package docs holds the documentation's tests: every relative link in the README, in docs/ and
// in the READMEs beside the code resolves, to a file that exists and, for a #fragment, to a
// heading of that file.
package docs

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

const root = ".."

// skipped are folders whose Markdown is not ours to check: generated SDKs, installed modules,
// build outputs.
var skipped = map[string]bool{
	"sdk": true, "node_modules": true, "third_party": true, "dist": true, "bin": true, "testdata": true,
}

// markdownFiles are the repository's Markdown files, relative to root with forward slashes.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || skipped[d.Name()]) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var (
	fence      = regexp.MustCompile("^\\s*(```|~~~)")
	inlineCode = regexp.MustCompile("`[^`]*`")
	link       = regexp.MustCompile(`!?\[([^\]]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	heading    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
)

// prose returns a Markdown text's lines outside fenced code blocks, with their line numbers.
func prose(text string) map[int]string {
	out := map[int]string{}
	inFence := false
	for i, line := range strings.Split(text, "\n") {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if !inFence {
			out[i+1] = line
		}
	}
	return out
}

// slug is a heading's anchor as GitHub makes it: the heading's text (a link's text for a link),
// lower-cased, without punctuation, spaces made hyphens.
func slug(text string) string {
	text = link.ReplaceAllString(text, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors are the anchors of a Markdown text's headings; a repeated heading gets -1, -2, ...
// as on GitHub.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	lines := prose(text)
	for i := 1; i <= len(strings.Split(text, "\n")); i++ {
		line, ok := lines[i]
		if !ok {
			continue
		}
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// brokenLinks returns a message for every relative link of file (relative to root) that does not
// resolve; read reads a file relative to root, exists tells whether a file or folder is there.
func brokenLinks(file string, read func(string) (string, error), exists func(string) bool) []string {
	text, err := read(file)
	if err != nil {
		return []string{err.Error()}
	}
	var broken []string
	lines := prose(text)
	for n := 1; n <= len(strings.Split(text, "\n")); n++ {
		line, ok := lines[n]
		if !ok {
			continue
		}
		for _, m := range link.FindAllStringSubmatch(inlineCode.ReplaceAllString(line, ""), -1) {
			target := m[2]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, fragment, _ := strings.Cut(target, "#")
			resolved := file
			if path != "" {
				resolved = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(file), path)))
			}
			where := fmt.Sprintf("%s:%d: %s", file, n, target)
			if strings.HasPrefix(resolved, "../") {
				broken = append(broken, where+": points outside the repository")
				continue
			}
			if !exists(resolved) {
				broken = append(broken, where+": no such file "+resolved)
				continue
			}
			if fragment == "" {
				continue
			}
			if !strings.HasSuffix(resolved, ".md") {
				broken = append(broken, where+": a #fragment of a file that is not Markdown")
				continue
			}
			targetText, err := read(resolved)
			if err != nil {
				broken = append(broken, where+": "+err.Error())
				continue
			}
			if !anchors(targetText)[fragment] {
				broken = append(broken, where+": no heading #"+fragment+" in "+resolved)
			}
		}
	}
	return broken
}

func readFromRoot(path string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, path))
	return string(data), err
}

func existsUnderRoot(path string) bool {
	_, err := os.Stat(filepath.Join(root, path))
	return err == nil
}

func TestEveryRelativeLinkInTheDocsResolvesToAFileAndHeading(t *testing.T) {
	files := markdownFiles(t)
	for _, want := range []string{"README.md", "docs/architecture.md", "docs/pitfalls.md", "bench/README.md",
		"e2e/README.md", "deploy/pko/README.md"} {
		found := false
		for _, f := range files {
			found = found || f == want
		}
		if !found {
			t.Fatalf("%s is not among the files checked; the test walks the wrong tree", want)
		}
	}
	links := 0
	for _, file := range files {
		text, _ := readFromRoot(file)
		links += len(link.FindAllString(text, -1))
		for _, problem := range brokenLinks(file, readFromRoot, existsUnderRoot) {
			t.Error(problem)
		}
	}
	if links == 0 {
		t.Fatal("no link found; the test reads the wrong files")
	}
}

func TestAnchorsAreMadeAsGitHubMakesThem(t *testing.T) {
	tests := []struct {
		heading, anchor string
	}{
		{"Quickstart (offline, no account)", "quickstart-offline-no-account"},
		{"End-to-end tests: `make e2e`", "end-to-end-tests-make-e2e"},
		{"The programs' own commands", "the-programs-own-commands"},
		{"Use from TypeScript, Python or YAML", "use-from-typescript-python-or-yaml"},
		{"See [Pitfalls](pitfalls.md) first", "see-pitfalls-first"},
		{"snake_case names", "snake_case-names"},
	}
	for _, tt := range tests {
		if got := slug(tt.heading); got != tt.anchor {
			t.Errorf("slug(%q) = %q, want %q", tt.heading, got, tt.anchor)
		}
	}
	if got := anchors("# A\n## A\n```\n# not a heading\n```\n### A\n"); !got["a"] || !got["a-1"] || !got["a-2"] || got["not-a-heading"] {
		t.Errorf("anchors of repeated headings and a code block = %v", got)
	}
}

func TestABrokenLinkIsReportedWithItsFileAndLine(t *testing.T) {
	files := map[string]string{
		"docs/a.md": "# A\n\n## Real heading\n\nSee [b](b.md), [gone](gone.md), [b's x](b.md#x),\n" +
			"[self](#real-heading), [nothing](#nothing), `[in code](gone.md)` and [up](../../x.md).\n",
		"docs/b.md": "# B\n\n## X\n",
	}
	read := func(path string) (string, error) {
		text, ok := files[path]
		if !ok {
			return "", os.ErrNotExist
		}
		return text, nil
	}
	exists := func(path string) bool { _, ok := files[path]; return ok }
	got := brokenLinks("docs/a.md", read, exists)
	want := []string{
		"docs/a.md:5: gone.md: no such file docs/gone.md",
		"docs/a.md:6: #nothing: no heading #nothing in docs/a.md",
		"docs/a.md:6: ../../x.md: points outside the repository",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("broken links:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
