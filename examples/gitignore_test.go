package examples_test

import (
	"os/exec"
	"strings"
	"testing"
)

func TestCredentialsAndInstalledPackagesAreIgnoredAndEveryExampleIsNot(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: .gitignore is not checked")
	}
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skip("not in a git checkout: .gitignore is not checked")
	}
	dir := strings.TrimSpace(string(root))
	ignored := func(path string) bool {
		// check-ignore exits 0 for an ignored path, 1 for one that is not.
		return exec.Command("git", "-C", dir, "check-ignore", "-q", "--no-index", path).Run() == nil
	}
	for _, path := range []string{
		"stack-input.json", "stack-input.yaml", "stack-input.yml",
		"iac/pulumi/digitaloceankubernetescluster/stack-input.yml",
		"iac/pulumi/civokubernetescluster/stack-input.yaml",
		"examples/typescript/node_modules/@pulumi/pulumi/index.js",
		"examples/typescript/package-lock.json",
	} {
		if !ignored(path) {
			t.Errorf("%s is not git-ignored", path)
		}
	}
	tracked, err := exec.Command("git", "-C", dir, "ls-files", "examples").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range strings.Fields(string(tracked)) {
		if ignored(path) {
			t.Errorf("%s is tracked but git-ignored: a fresh copy would lose it", path)
		}
	}
}
