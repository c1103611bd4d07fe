//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
)

// makeEngine makes an engine folder at dir as `make engine` lays it out: the engine and every
// driver's plugin, so that a cloud added to the drivers needs no line here.
func makeEngine(t *testing.T, dir string) {
	t.Helper()
	files := []string{"bin/pulumi"}
	for _, id := range clouds.IDs() {
		files = append(files, "plugins/pulumi-resource-"+string(id))
	}
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// Promise: sandbox-engine-folder-users-own
func TestTheEngineIsRunOnlyFromAFolderNoOtherUserMadeOrMayWrite(t *testing.T) {
	tests := []struct {
		name string
		// make makes what FindEngine is given (or, with implicit, finds upwards from the current directory).
		make     func(t *testing.T, engine string)
		implicit bool
		refused  string
		// plugin: the Civo plugin is a link, and the engine runs the file it points at.
		plugin bool
	}{
		{name: "an engine of the user's is found", make: makeEngine},
		{name: "an engine whose bin anyone may write in is refused", refused: "written by its group or others",
			make: func(t *testing.T, engine string) {
				makeEngine(t, engine)
				chmod(t, filepath.Join(engine, "bin"), 0o777)
			}},
		{name: "an engine whose plugins another user owns is refused", refused: "another user",
			make: func(t *testing.T, engine string) {
				makeEngine(t, engine)
				asNobody(t, filepath.Join(engine, "plugins"))
			}},
		{name: "a link to an engine of the user's is followed", make: func(t *testing.T, engine string) {
			real := filepath.Join(t.TempDir(), "engine")
			makeEngine(t, real)
			if err := os.Symlink(real, engine); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a link to an engine another user made is refused", refused: "another user",
			make: func(t *testing.T, engine string) {
				real := filepath.Join(t.TempDir(), "engine")
				makeEngine(t, real)
				asNobody(t, real)
				if err := os.Symlink(real, engine); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "an engine whose plugin anyone may write is refused", refused: "written by its group or others",
			make: func(t *testing.T, engine string) {
				makeEngine(t, engine)
				chmod(t, filepath.Join(engine, "plugins", "pulumi-resource-civo"), 0o777)
			}},
		{name: "an engine whose plugin its group may write is refused", refused: "written by its group or others",
			make: func(t *testing.T, engine string) {
				makeEngine(t, engine)
				chmod(t, filepath.Join(engine, "plugins", "pulumi-resource-digitalocean"), 0o775)
			}},
		{name: "an engine whose plugin another user owns is refused", refused: "another user",
			make: func(t *testing.T, engine string) {
				makeEngine(t, engine)
				asNobody(t, filepath.Join(engine, "plugins", "pulumi-resource-civo"))
			}},
		{name: "an engine whose plugin links to a file another user owns is refused", refused: "another user",
			make: func(t *testing.T, engine string) {
				makeEngine(t, engine)
				planted := filepath.Join(t.TempDir(), "pulumi-resource-civo")
				if err := os.WriteFile(planted, []byte("#!/bin/sh\n"), 0o755); err != nil {
					t.Fatal(err)
				}
				asNobody(t, planted)
				link(t, planted, filepath.Join(engine, "plugins", "pulumi-resource-civo"))
			}},
		{name: "an engine whose plugin links to a file of the user's is found", plugin: true,
			make: func(t *testing.T, engine string) {
				makeEngine(t, engine)
				real := filepath.Join(t.TempDir(), "pulumi-resource-civo")
				if err := os.WriteFile(real, []byte("#!/bin/sh\n"), 0o755); err != nil {
					t.Fatal(err)
				}
				link(t, real, filepath.Join(engine, "plugins", "pulumi-resource-civo"))
			}},
		{name: "an engine whose CLI anyone may write is refused", refused: "written by its group or others",
			make: func(t *testing.T, engine string) {
				makeEngine(t, engine)
				chmod(t, filepath.Join(engine, "bin", "pulumi"), 0o777)
			}},
		{name: "a .engine another user planted above the current directory is refused", implicit: true, refused: "another user",
			make: func(t *testing.T, engine string) {
				makeEngine(t, engine)
				asNobody(t, engine)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			engine := filepath.Join(base, ".engine")
			tt.make(t, engine)
			arg := engine
			if tt.implicit {
				arg = ""
				t.Setenv(EngineEnv, "")
				work := filepath.Join(base, "project")
				if err := os.Mkdir(work, 0o700); err != nil {
					t.Fatal(err)
				}
				t.Chdir(work)
			}
			e, err := FindEngine(arg)
			if tt.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tt.refused) || !strings.Contains(err.Error(), engine) {
					t.Fatalf("FindEngine = %+v, %v, want a refusal naming %s and saying %q", e, err, engine, tt.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			real, _ := filepath.EvalSymlinks(engine)
			if e.Bin != filepath.Join(real, "bin") {
				t.Errorf("the engine's bin is %s, want %s, the folder checked", e.Bin, filepath.Join(real, "bin"))
			}
			for _, p := range e.Plugins {
				want := filepath.Join(real, "plugins", "pulumi-resource-"+p.Name)
				if tt.plugin && p.Name == "civo" {
					want, _ = filepath.EvalSymlinks(want)
				}
				if p.Binary != want {
					t.Errorf("the %s plugin is %s, want %s, the file checked", p.Name, p.Binary, want)
				}
			}
		})
	}
}

func TestAnEngineWithoutItsPluginsIsNamedWithBothWaysToGetThem(t *testing.T) {
	tests := []struct {
		name string
		// remove is what is taken from a complete engine folder.
		remove []string
		want   []string
	}{
		{name: "an engine without the Civo plugin names it",
			remove: []string{"plugins/pulumi-resource-civo"},
			want:   []string{"lacks plugins/pulumi-resource-civo", "pulumi plugin install resource civo 2.4.8", "../shared/providers-src"}},
		{name: "an engine without plugins names both and both ways",
			remove: []string{"plugins/pulumi-resource-civo", "plugins/pulumi-resource-digitalocean"},
			want: []string{"plugins/pulumi-resource-civo and plugins/pulumi-resource-digitalocean",
				"pulumi plugin install resource digitalocean 4.57.0", "pulumi plugin install resource civo 2.4.8"}},
		{name: "no engine at all names both ways without a folder",
			remove: []string{"bin/pulumi", "plugins/pulumi-resource-civo", "plugins/pulumi-resource-digitalocean"},
			want:   []string{"no Pulumi engine", "pulumi plugin install resource digitalocean 4.57.0", "../shared/providers-src"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			engine := filepath.Join(t.TempDir(), ".engine")
			makeEngine(t, engine)
			for _, f := range tt.remove {
				if err := os.Remove(filepath.Join(engine, filepath.FromSlash(f))); err != nil {
					t.Fatal(err)
				}
			}
			_, err := FindEngine(engine)
			if err == nil {
				t.Fatal("FindEngine found an engine")
			}
			for _, s := range tt.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("the error does not say %q: %v", s, err)
				}
			}
			if strings.Contains(err.Error(), "run `make engine`") {
				t.Errorf("the error sends the user back to make engine alone: %v", err)
			}
		})
	}
}

// link replaces path with a symbolic link to target.
func link(t *testing.T, target, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}
