package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ignored asks git which of paths (relative to the repository root) .gitignore ignores. It
// looks past the index (--no-index): a tracked file is never reported ignored otherwise, and
// the question is what the rules say of it.
func ignored(t *testing.T, root string, paths []string) map[string]bool {
	t.Helper()
	cmd := exec.Command("git", "-C", root, "check-ignore", "--no-index", "--stdin", "-z")
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\x00") + "\x00")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	// Exit 1 means that none of the paths is ignored.
	if exitErr, ok := err.(*exec.ExitError); ok && exitErr.ExitCode() == 1 {
		err = nil
	}
	if err != nil {
		t.Fatalf("git check-ignore: %v: %s", err, stderr.String())
	}
	got := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			got[p] = true
		}
	}
	return got
}

func TestGitIgnoresLocalStackInputsAndTheTypeScriptExamplesInstallButNoCommittedExample(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed:", err)
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skip("not a git checkout:", err)
	}
	wantIgnored := []string{
		"stack-input.json", "stack-input.yaml", "stack-input.yml",
		"iac/pulumi/digitaloceankubernetescluster/stack-input.json",
		"iac/pulumi/digitaloceankubernetescluster/stack-input.yaml",
		"iac/pulumi/digitaloceankubernetescluster/stack-input.yml",
		"examples/typescript/stack-input.yaml",
		"examples/typescript/node_modules/x",
		"examples/typescript/node_modules/@pulumi/pulumi/package.json",
		"examples/typescript/package-lock.json",
		"examples/typescript/yarn.lock",
		"examples/typescript/pnpm-lock.yaml",
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "examples").Output()
	if err != nil {
		t.Fatalf("git ls-files examples: %v", err)
	}
	committed := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(committed) < 10 || !strings.Contains(string(out), ".stack-input.yaml") {
		t.Fatalf("git ls-files examples lists %d files, without the example stack inputs", len(committed))
	}
	got := ignored(t, root, append(wantIgnored, committed...))
	tests := []struct {
		name   string
		paths  []string
		ignore bool
	}{
		{"a stack input at the root, in a program or in an example and what npm installs are ignored", wantIgnored, true},
		{"no committed file under examples is ignored", committed, false},
	}
	for _, tt := range tests {
		for _, p := range tt.paths {
			if got[p] != tt.ignore {
				t.Errorf("%s: %s is ignored: %t", tt.name, p, got[p])
			}
		}
	}
}
