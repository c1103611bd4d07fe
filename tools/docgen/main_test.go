package main

import (
	"os"
	"path/filepath"
	"testing"
)

// make check-generated regenerates the page too, but it needs buf; this catches a stale page
// in a plain `go test`.
func TestTheCommittedPitfallsPageIsWhatTheEffectsTablesGenerate(t *testing.T) {
	committed, err := os.ReadFile(filepath.Join("..", "..", "docs", "pitfalls.md"))
	if err != nil {
		t.Fatal(err)
	}
	generated, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	if string(committed) != generated {
		t.Error("docs/pitfalls.md is stale: run `go run ./tools/docgen docs/pitfalls.md` (or make protos) and commit it")
	}
}
