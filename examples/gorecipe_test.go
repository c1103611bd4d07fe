package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// recipeProgram is what a reader of docs/sdks.md writes before following the recipe: a Pulumi
// program that imports both a module and Pulumi's SDK, as the page's example does.
const recipeProgram = `package main

import (
	doks "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/module"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		_, err := doks.New(ctx, "platform", nil)
		return err
	})
}
`

// TestTheGoRecipeForAClonesModulesWorksAsWrittenOnAFreshModule runs the commands of docs/sdks.md
// that point a module at a clone, exactly as written, in a new module beside a clone, then
// type-checks it. Without a require line, `go mod tidy` looks Pulumi's SDK up at its latest version instead of
// the one clusterplane pins, and fails or picks another. It needs Go's module cache, or the module
// proxy, and half a minute: skipped with -short.
func TestTheGoRecipeForAClonesModulesWorksAsWrittenOnAFreshModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module against the clone: slow")
	}
	block := blockWith(t, doc(t, "sdks.md"), "sh", "go mod edit -replace")
	var commands []string
	for _, line := range strings.Split(block, "\n") {
		if line = strings.TrimSpace(regexp.MustCompile(`\s+#.*$`).ReplaceAllString(line, "")); line != "" {
			commands = append(commands, line)
		}
	}

	// The layout the recipe assumes: the clone at ../clusterplane from the module.
	dir := t.TempDir()
	clone, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(clone, filepath.Join(dir, "clusterplane")); err != nil {
		t.Fatal(err)
	}
	module := filepath.Join(dir, "fleet")
	if err := os.Mkdir(module, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(module, "main.go"), []byte(recipeProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	goCmd := func(args ...string) {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = module
		// The reader's environment: no workspace, module mode, the go line of the clone's go.mod.
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	goCmd("mod", "init", "example.com/fleet")
	for _, command := range commands {
		fields := strings.Fields(command)
		if fields[0] != "go" {
			t.Fatalf("the recipe runs %q; the test runs only go commands", command)
		}
		goCmd(fields[1:]...)
	}
	// vet type-checks the program against the versions the recipe resolved, without the link.
	goCmd("vet", ".")
}
