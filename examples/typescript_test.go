package examples_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// packageJSON is what these tests read of a package.json.
type packageJSON struct {
	Dependencies    map[string]string
	DevDependencies map[string]string
}

func readPackageJSON(t *testing.T, path string) packageJSON {
	t.Helper()
	var p packageJSON
	if err := json.Unmarshal([]byte(readFile(t, path)), &p); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return p
}

// Issue 33 item 12: the example must type-check with what its own devDependencies install, so
// it pins the compiler and Node's types (the ones tools/sdkcheck pins, which CI type-checks the
// SDK with) and has a tsconfig.json that says how.
func TestTheTypeScriptExamplePinsItsCompilerAndHasATsconfig(t *testing.T) {
	example := readPackageJSON(t, filepath.Join("typescript", "package.json"))
	sdkcheck := readPackageJSON(t, filepath.Join(root, "tools", "sdkcheck", "package.json"))
	exact := regexp.MustCompile(`^\d+\.\d+\.\d+$`)
	for _, name := range []string{"typescript", "@types/node"} {
		got, ok := example.DevDependencies[name]
		switch {
		case !ok:
			t.Errorf("examples/typescript/package.json has no devDependency %s", name)
		case !exact.MatchString(got):
			t.Errorf("examples/typescript/package.json: %s %q is a range, want an exact version", name, got)
		case got != sdkcheck.DevDependencies[name]:
			t.Errorf("examples/typescript/package.json: %s %s, tools/sdkcheck pins %s", name, got, sdkcheck.DevDependencies[name])
		}
	}
	var tsconfig struct {
		CompilerOptions map[string]any
		Files           []string
	}
	data, err := os.ReadFile(filepath.Join("typescript", "tsconfig.json"))
	if err != nil {
		t.Fatalf("examples/typescript has no tsconfig.json: %v", err)
	}
	if err := json.Unmarshal(data, &tsconfig); err != nil {
		t.Fatalf("examples/typescript/tsconfig.json: %v", err)
	}
	if len(tsconfig.Files) != 1 || tsconfig.Files[0] != "index.ts" || tsconfig.CompilerOptions["strict"] != true {
		t.Errorf("examples/typescript/tsconfig.json: files %v, strict %v; want index.ts, strictly", tsconfig.Files, tsconfig.CompilerOptions["strict"])
	}
}

// The SDK the example depends on is built with one command: no hand edit of ${VERSION}.
func TestTheTypeScriptSDKBuildsWithOneCommandAndCIChecksTheExampleWithItsOwnPins(t *testing.T) {
	makefile := readFile(t, filepath.Join(root, "Makefile"))
	if !regexp.MustCompile(`(?m)^sdk-nodejs:`).MatchString(makefile) {
		t.Fatal("the Makefile has no sdk-nodejs target")
	}
	checkSDKs := regexp.MustCompile(`(?ms)^check-sdks:.*?\n\n`).FindString(makefile + "\n\n")
	for _, want := range []string{"$(MAKE) sdk-nodejs", "cd examples/typescript && npm install", "./node_modules/.bin/tsc -p tsconfig.json"} {
		if !strings.Contains(checkSDKs, want) {
			t.Errorf("make check-sdks does not run %q: the example is not type-checked with its own pins", want)
		}
	}
	for _, block := range codeBlocks(readFile(t, filepath.Join("typescript", "README.md")), "sh") {
		if strings.Contains(block, "sed ") || strings.Contains(block, "${VERSION}") {
			t.Errorf("examples/typescript/README.md still edits the SDK's package.json by hand:\n%s", block)
		}
		if !strings.Contains(block, "make sdk-nodejs") {
			t.Errorf("examples/typescript/README.md does not build the SDK with make sdk-nodejs:\n%s", block)
		}
	}
}
