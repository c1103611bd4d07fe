//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// makeEngine makes an engine folder at dir as `make engine` lays it out.
func makeEngine(t *testing.T, dir string) {
	t.Helper()
	for _, f := range []string{"bin/pulumi", "plugins/pulumi-resource-digitalocean", "plugins/pulumi-resource-civo"} {
		path := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestTheEngineIsRunOnlyFromAFolderNoOtherUserMadeOrMayWrite(t *testing.T) {
	tests := []struct {
		name string
		// make makes what FindEngine is given (or, with implicit, finds upwards from the current directory).
		make     func(t *testing.T, engine string)
		implicit bool
		refused  string
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
		})
	}
}
