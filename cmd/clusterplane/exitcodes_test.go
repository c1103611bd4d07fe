package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

// words is text as a reader sees it: no line breaks, no Markdown backticks.
func words(text string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(text, "`", "")), " ")
}

// exitCodesPage is the one page of the docs that lists the exit codes; the README links to it.
var exitCodesPage = filepath.Join("..", "..", "docs", "deploying.md")

func TestTheHelpTextsAndTheDocsSayDiffsExitCodesInTheOneWording(t *testing.T) {
	sentence := words(exitcode.Diff)
	docs, err := os.ReadFile(exitCodesPage)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, text string
		times      int
	}{
		{"diff --help", run(t, "", "diff", "--help").stdout, 1},
		{"the root help", run(t, "", "--help").stdout, 1},
		// Once: the docs list exit codes in one place, which every other page links to.
		{"docs/deploying.md, under Exit codes,", string(docs), 1},
	}
	for _, tt := range tests {
		if got := strings.Count(words(tt.text), sentence); got < tt.times {
			t.Errorf("%s says it %d times, want %d: %q", tt.name, got, tt.times, sentence)
		}
		if strings.Contains(words(tt.text), "3 when something changes") || strings.Contains(words(tt.text), "3 when there are changes") {
			t.Errorf("%s still says diff exits 3 for any change", tt.name)
		}
	}
}

// Promise: diff-exit-codes
// Promise: diff-exits-3
func TestDiffExitsAsItsHelpSays(t *testing.T) {
	minimal := readExample(t, "digitaloceankubernetescluster/minimal.yaml")
	unprotected := strings.Replace(minimal, "  region: fra1\n", "  region: fra1\n  deletionProtection: false\n", 1)
	if unprotected == minimal {
		t.Fatal("minimal.yaml no longer has region: fra1 to edit")
	}
	dir := writeFiles(t, map[string]string{
		"minimal.yaml":           minimal,
		"scaled.yaml":            strings.Replace(minimal, "nodeCount: 2", "nodeCount: 3", 1),
		"moved.yaml":             strings.Replace(minimal, "region: fra1", "region: ams3", 1),
		"unprotected.yaml":       unprotected,
		"unprotected-moved.yaml": strings.Replace(unprotected, "region: fra1", "region: ams3", 1),
		"invalid.yaml":           strings.Replace(minimal, "name: dev-fra1", "name: Bad_Name", 1),
	})
	help := words(run(t, "", "diff", "--help").stdout)
	tests := []struct {
		name     string
		old, new string
		flags    []string
		// says is the part of the help's sentence that promises code.
		says   string
		code   int
		effect string
	}{
		{"a manifest diffed with itself changes nothing and exits 0", "minimal.yaml", "minimal.yaml", nil,
			"exits 0 when nothing is replaced or refused", exitcode.OK, ""},
		{"a node count change updates in place and exits 0", "minimal.yaml", "scaled.yaml", nil,
			"exits 0 when nothing is replaced or refused", exitcode.OK, `"effect": "update"`},
		{"a region change without deletion protection replaces and exits 3", "unprotected.yaml", "unprotected-moved.yaml", nil,
			"3 when something is", exitcode.Blocked, `"effect": "replace"`},
		{"a region change without deletion protection allowed to replace exits 0", "unprotected.yaml", "unprotected-moved.yaml", []string{"--allow-replace"},
			"--allow-replace turns 3 into 0 for intended replacements", exitcode.OK, `"effect": "replace"`},
		{"a region change under deletion protection is refused and exits 3", "minimal.yaml", "moved.yaml", nil,
			"3 when something is", exitcode.Blocked, `"effect": "refused"`},
		{"a refused change exits 3 even with --allow-replace", "minimal.yaml", "moved.yaml", []string{"--allow-replace"},
			"a refused change still exits 3", exitcode.Blocked, `"effect": "refused"`},
		{"an invalid manifest exits 1", "minimal.yaml", "invalid.yaml", nil,
			"1 for invalid input", exitcode.Invalid, ""},
		{"an unknown output format exits 2", "minimal.yaml", "minimal.yaml", []string{"-o", "yaml"},
			"2 for usage", exitcode.Usage, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(help, tt.says) {
				t.Fatalf("diff --help does not say %q:\n%s", tt.says, help)
			}
			args := append([]string{"diff", filepath.Join(dir, tt.old), filepath.Join(dir, tt.new), "-o", "json"}, tt.flags...)
			r := run(t, "", args...)
			if r.code != tt.code {
				t.Errorf("diff %s %s %v = exit %d, want %d as the help says (%q); stdout:\n%s\nstderr:\n%s",
					tt.old, tt.new, tt.flags, r.code, tt.code, tt.says, r.stdout, r.stderr)
			}
			if tt.effect != "" && !strings.Contains(r.stdout, tt.effect) {
				t.Errorf("diff %s %s finds no %s change:\n%s", tt.old, tt.new, tt.effect, r.stdout)
			}
			if tt.old == tt.new && tt.code == exitcode.OK && !strings.Contains(r.stdout, `"changes": []`) {
				t.Errorf("diff of a file with itself finds changes:\n%s", r.stdout)
			}
			for _, effect := range []string{"replace", "refused"} {
				if tt.code == exitcode.OK && len(tt.flags) == 0 && strings.Contains(r.stdout, `"effect": "`+effect+`"`) {
					t.Errorf("diff %s %s exits 0 but finds a %s change:\n%s", tt.old, tt.new, effect, r.stdout)
				}
			}
		})
	}
}

// Promise: exit-codes
func TestTheRootHelpAndTheDocsListEveryExitCodeTheCommandsUse(t *testing.T) {
	help := words(run(t, "", "--help").stdout)
	docs, err := os.ReadFile(exitCodesPage)
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range []struct {
		code int
		says string
	}{
		{exitcode.OK, "0 ok"},
		{exitcode.Invalid, "1 invalid input"},
		{exitcode.Usage, "2 usage error"},
		{exitcode.Blocked, "3 something that must not pass unasked"},
		{exitcode.NotReady, "4 status found a stack whose last update failed"},
		{exitcode.Interrupted, "130 interrupted"},
		{exitcode.Crash, "70 an internal error"},
	} {
		if !strings.Contains(help, code.says) {
			t.Errorf("clusterplane --help does not list exit code %d (%q)", code.code, code.says)
		}
		if !strings.Contains(words(string(docs)), code.says) {
			t.Errorf("docs/deploying.md does not list exit code %d (%q)", code.code, code.says)
		}
	}
}

// Commands that stop on Ctrl-C with 130 say so in their own help's exit codes.
func TestCommandsThatCanBeInterruptedListExitCode130InTheirHelp(t *testing.T) {
	for _, args := range [][]string{{"discover", "--help"}, {"upgrade", "plan", "--help"}} {
		var stdout, stderr bytes.Buffer
		if code := newApp(registry.Kinds(), strings.NewReader(""), &stdout, &stderr).run(args); code != exitcode.OK {
			t.Fatalf("%v: exit %d", args, code)
		}
		if !strings.Contains(stdout.String(), "130 interrupted") {
			t.Errorf("%s does not list 130:\n%s", strings.Join(args, " "), stdout.String())
		}
	}
}
