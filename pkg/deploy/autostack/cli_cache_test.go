//go:build unix

package autostack

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTheCachedCLIVersionIsReadOnlyFromAFolderOfTheUsersAlone(t *testing.T) {
	tests := []struct {
		name string
		// mode is the cache's clusterplane folder's when the planted version is read back.
		mode os.FileMode
		want string
	}{
		{name: "a private cache folder's version is read back", mode: 0o700, want: "9.9.9"},
		{name: "a version in a folder anyone may write is not believed", mode: 0o777, want: "3.300.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cache := t.TempDir()
			t.Setenv("XDG_CACHE_HOME", cache)
			cli := filepath.Join(t.TempDir(), "pulumi")
			if err := os.WriteFile(cli, []byte("#!/bin/sh\necho v3.300.0\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			if v, err := cliVersion(cli); err != nil || v.String() != "3.300.0" {
				t.Fatalf("cliVersion = %v, %v, want the CLI's own 3.300.0", v, err)
			}
			cached, _ := filepath.Glob(filepath.Join(cache, "clusterplane", "pulumi-version-*"))
			if len(cached) != 1 {
				t.Fatalf("the cache holds %q, want one version", cached)
			}
			// What someone who may write the folder would put there: a version the minimum accepts.
			if err := os.WriteFile(cached[0], []byte("9.9.9"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(filepath.Dir(cached[0]), tt.mode); err != nil {
				t.Fatal(err)
			}
			if v, err := cliVersion(cli); err != nil || v.String() != tt.want {
				t.Errorf("cliVersion = %v, %v, want %s", v, err, tt.want)
			}
		})
	}
}
