package pulumiprovider_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/plugin"

	"github.com/clusterplane/clusterplane/pkg/cloud/civo/pulumiprovider"
)

func TestCheckPluginFindsThePluginOnPathOrInstalledAndOtherwiseSaysHowToGetIt(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, bin, home string)
		wantErr bool
	}{
		{name: "neither on PATH nor installed", setup: func(*testing.T, string, string) {}, wantErr: true},
		{name: "on PATH", setup: func(t *testing.T, bin, _ string) {
			write(t, filepath.Join(bin, plugin.Name))
		}},
		{name: "installed with pulumi plugin install", setup: func(t *testing.T, _, home string) {
			write(t, filepath.Join(home, "plugins", "resource-clusterplane-v0.0.0", plugin.Name))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bin, home := t.TempDir(), t.TempDir()
			t.Setenv("PATH", bin)
			t.Setenv("PULUMI_HOME", home)
			tt.setup(t, bin, home)
			err := pulumiprovider.CheckPlugin()
			if (err != nil) != tt.wantErr {
				t.Fatalf("CheckPlugin() = %v, want an error: %v", err, tt.wantErr)
			}
			if err != nil {
				for _, want := range []string{plugin.Name, "go build", "pulumi plugin install", "clusterplane up"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("the error does not say %q: %v", want, err)
					}
				}
			}
		})
	}
}

func write(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}
