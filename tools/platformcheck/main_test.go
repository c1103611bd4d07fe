package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// module writes a module of one package whose Windows-only file calls a function only the Linux
// file defines: it builds on Linux and not on Windows.
func module(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":           "module example.com/m\n\ngo 1.22\n",
		"m.go":             "package m\n\nfunc Run() { start() }\n",
		"start_linux.go":   "package m\n\nfunc start() {}\n",
		"start_windows.go": "package m\n\nfunc start() { missing() }\n",
		"start_darwin.go":  "package m\n\nfunc start() {}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestAPlatformOnlyErrorIsFoundForThatPlatformAlone(t *testing.T) {
	dir := module(t)
	for _, tc := range []struct {
		platform string
		want     string // empty: no problem
	}{
		{"windows/amd64", "start_windows.go:3:16: undefined: missing"},
		{"darwin/arm64", ""},
		{"linux/amd64", ""},
	} {
		t.Run(tc.platform, func(t *testing.T) {
			problems, err := check(dir, tc.platform, "./...")
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(problems, "\n")
			switch {
			case tc.want == "" && got != "":
				t.Errorf("problems for %s, want none:\n%s", tc.platform, got)
			case tc.want != "" && !strings.Contains(got, tc.want):
				t.Errorf("problems for %s:\n%s\nwant one naming %q", tc.platform, got, tc.want)
			}
		})
	}
}

func TestAPlatformNotWrittenGOOSSlashGOARCHIsAnError(t *testing.T) {
	if _, err := check(module(t), "windows", "./..."); err == nil || !strings.Contains(err.Error(), "GOOS/GOARCH") {
		t.Errorf("check(\"windows\") = %v, want an error asking for GOOS/GOARCH", err)
	}
}
