//go:build unix

package autostack

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/plugin"
	"github.com/clusterplane/clusterplane/pkg/release"
)

// nobody is the uid the tests give a folder "another user" made; only root may.
const nobody = 65534

// plant makes the folder rel in base as an attacker would: mode, and owned by uid nobody when
// byNobody, with a pulumi-resource-clusterplane of theirs in it. It skips the test when this
// process may not hand a folder to another user.
func plant(t *testing.T, base, rel string, mode os.FileMode, byNobody bool) {
	t.Helper()
	if byNobody && os.Getuid() != 0 {
		t.Skip("handing a folder to another user needs root")
	}
	dir := filepath.Join(base, filepath.FromSlash(rel))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, plugin.Name), []byte("#!/bin/sh\necho planted\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
	if byNobody {
		if err := os.Chown(dir, nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
}

// freshPlugin runs providePlugin as a new process would: its once reset, PATH restored after.
func freshPlugin(t *testing.T, exe string) error {
	t.Helper()
	t.Setenv("PATH", os.Getenv("PATH"))
	pluginOnce.Once = sync.Once{}
	pluginOnce.err = nil
	t.Cleanup(func() { pluginOnce.Once = sync.Once{} })
	return providePlugin(exe)
}

// Promise: folders-must-be-the-users-own
func TestThePluginIsPutFirstOnPathOnlyFromAFolderNoOtherUserMadeOrMayWrite(t *testing.T) {
	uid := fmt.Sprint(os.Getuid())
	tests := []struct {
		name string
		// cache is false for a process without a cache folder (HOME and XDG_CACHE_HOME unset).
		cache bool
		// plant plants a folder in the cache folder (or, without one, in TMPDIR).
		plant func(t *testing.T, base string)
		// refused is what the refusal says; "" when the plugin is provided.
		refused string
	}{
		{name: "a cache folder of the user's own gets a private plugin folder", cache: true, plant: func(*testing.T, string) {}},
		{name: "a plugin folder another user made first in the cache is refused", cache: true,
			plant:   func(t *testing.T, base string) { plant(t, base, "clusterplane/plugin/"+uid, 0o755, true) },
			refused: fmt.Sprintf("owner uid %d", nobody)},
		{name: "a clusterplane folder another user made first in the cache is refused", cache: true,
			plant:   func(t *testing.T, base string) { plant(t, base, "clusterplane", 0o755, true) },
			refused: fmt.Sprintf("owner uid %d", nobody)},
		{name: "a plugin folder anyone may write is refused", cache: true,
			plant:   func(t *testing.T, base string) { plant(t, base, "clusterplane/plugin/"+uid, 0o777, false) },
			refused: "written by its group or others"},
		{name: "a link in place of the plugin folder is refused", cache: true,
			plant: func(t *testing.T, base string) {
				plant(t, base, "elsewhere", 0o700, false)
				if err := os.MkdirAll(filepath.Join(base, "clusterplane", "plugin"), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Join(base, "elsewhere"), filepath.Join(base, "clusterplane", "plugin", uid)); err != nil {
					t.Fatal(err)
				}
			},
			refused: "symbolic link"},
		{name: "without a cache folder the plugin folder another user made first in TMPDIR is not used", cache: false,
			plant: func(t *testing.T, base string) { plant(t, base, "clusterplane/plugin/"+uid, 0o755, true) }},
		{name: "without a cache folder an open folder in TMPDIR is not used", cache: false,
			plant: func(t *testing.T, base string) { plant(t, base, "clusterplane/plugin/"+uid, 0o777, false) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp, cache := t.TempDir(), t.TempDir()
			t.Setenv("TMPDIR", tmp)
			t.Setenv("PULUMI_IGNORE_AMBIENT_PLUGINS", "")
			base := tmp
			if tt.cache {
				t.Setenv("XDG_CACHE_HOME", cache)
				base = cache
			} else {
				t.Setenv("XDG_CACHE_HOME", "")
				t.Setenv("HOME", "")
				if _, err := os.UserCacheDir(); err == nil {
					t.Skip("this system has a cache folder without HOME")
				}
			}
			tt.plant(t, base)
			exe, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			before := os.Getenv("PATH")
			err = freshPlugin(t, exe)
			first, _, _ := strings.Cut(os.Getenv("PATH"), string(os.PathListSeparator))
			if tt.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tt.refused) {
					t.Fatalf("providePlugin = %v, want a refusal saying %q", err, tt.refused)
				}
				if os.Getenv("PATH") != before {
					t.Errorf("PATH changed to start with %s although the folder was refused", first)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if target, err := os.Readlink(filepath.Join(first, plugin.Name)); err != nil || target != exe {
				t.Fatalf("first on PATH, %s holds %s -> %q (%v), want the link to clusterplane", first, plugin.Name, target, err)
			}
			// Nothing from the shared temporary folder's fixed clusterplane/ path is on PATH.
			if strings.HasPrefix(first, filepath.Join(tmp, "clusterplane")+string(os.PathSeparator)) {
				t.Errorf("the plugin folder %s is under the predictable %s", first, filepath.Join(tmp, "clusterplane"))
			}
			// Every folder from the cache (or TMPDIR) down to the plugin's is this user's alone.
			for d := first; d != base && len(d) > len(base); d = filepath.Dir(d) {
				info, err := os.Lstat(d)
				if err != nil {
					t.Fatal(err)
				}
				st := info.Sys().(*syscall.Stat_t)
				if !info.IsDir() || int(st.Uid) != os.Getuid() || info.Mode().Perm() != 0o700 {
					t.Errorf("%s: %v owned by uid %d, want a folder of uid %d's, mode 0700", d, info.Mode(), st.Uid, os.Getuid())
				}
			}
			if !tt.cache {
				// A folder made for this process alone, where the sweep finds it once the process ends.
				root, err := workspacesRoot()
				if err != nil {
					t.Fatal(err)
				}
				if filepath.Dir(first) != root || !strings.HasPrefix(filepath.Base(first), fmt.Sprintf("%d-", os.Getpid())) {
					t.Errorf("the plugin folder %s is not one of this process's in %s", first, root)
				}
			}
		})
	}
}

// Promise: folders-must-be-the-users-own
func TestWithAmbientPluginsIgnoredThePulumiHomesPluginFolderMustBeTheUsersAlone(t *testing.T) {
	tests := []struct {
		name    string
		plant   func(t *testing.T, home string)
		refused string
	}{
		{name: "a new Pulumi home gets the plugin", plant: func(*testing.T, string) {}},
		{name: "a plugins folder anyone may write is refused",
			plant: func(t *testing.T, home string) { plant(t, home, "plugins", 0o777, false) }, refused: "written by its group or others"},
		{name: "a version folder another user made first is refused",
			plant: func(t *testing.T, home string) {
				plant(t, home, "plugins/resource-clusterplane-v"+release.Version(), 0o755, true)
			}, refused: fmt.Sprintf("owner uid %d", nobody)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("PULUMI_HOME", home)
			t.Setenv("PULUMI_IGNORE_AMBIENT_PLUGINS", "true")
			tt.plant(t, home)
			exe, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			err = freshPlugin(t, exe)
			if tt.refused == "" {
				if err != nil {
					t.Fatal(err)
				}
				link := filepath.Join(home, "plugins", "resource-clusterplane-v"+release.Version(), plugin.Name)
				if target, err := os.Readlink(link); err != nil || target != exe {
					t.Errorf("%s -> %q (%v), want the link to clusterplane", link, target, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.refused) {
				t.Fatalf("providePlugin = %v, want a refusal saying %q", err, tt.refused)
			}
		})
	}
}

// Promise: folders-must-be-the-users-own
func TestTheLocalBackendsFoldersMustBeTheUsersAlone(t *testing.T) {
	tests := []struct {
		name    string
		plant   func(t *testing.T, config string)
		refused string
	}{
		{name: "a new config folder gets a private state folder", plant: func(*testing.T, string) {}},
		{name: "a state folder anyone may write is refused",
			plant: func(t *testing.T, config string) { plant(t, config, "clusterplane/state", 0o777, false) }, refused: "written by its group or others"},
		{name: "a clusterplane folder another user made first is refused",
			plant: func(t *testing.T, config string) { plant(t, config, "clusterplane", 0o755, true) }, refused: fmt.Sprintf("owner uid %d", nobody)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", config)
			tt.plant(t, config)
			url, err := LocalBackend()
			if tt.refused == "" {
				if err != nil || url != "file://"+filepath.Join(config, "clusterplane", "state") {
					t.Fatalf("LocalBackend = %q, %v", url, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.refused) {
				t.Fatalf("LocalBackend = %q, %v, want a refusal saying %q", url, err, tt.refused)
			}
		})
	}
}

func TestAFileBackendNamedOutrightMustBeTheUsersAloneToo(t *testing.T) {
	tests := []struct {
		name string
		// url is the backend named, in base, a private folder of the test's.
		url     func(t *testing.T, base string) string
		refused string
	}{
		{name: "a folder of the user's is used", url: func(t *testing.T, base string) string {
			plant(t, base, "state", 0o700, false)
			return "file://" + filepath.Join(base, "state")
		}},
		{name: "a folder not there yet is made private", url: func(t *testing.T, base string) string {
			return "file://" + filepath.Join(base, "new", "state") + "?no_tmp_dir=true"
		}},
		{name: "a folder another user made, anyone may write in, is refused", url: func(t *testing.T, base string) string {
			plant(t, base, "state", 0o777, true)
			return "file://" + filepath.Join(base, "state")
		}, refused: fmt.Sprintf("owner uid %d", nobody)},
		{name: "a folder of the user's anyone may write in is refused", url: func(t *testing.T, base string) string {
			plant(t, base, "state", 0o777, false)
			return "file://" + filepath.Join(base, "state")
		}, refused: "written by its group or others"},
		{name: "a link to a folder another user made is refused", url: func(t *testing.T, base string) string {
			plant(t, base, "theirs", 0o755, true)
			if err := os.Symlink(filepath.Join(base, "theirs"), filepath.Join(base, "state")); err != nil {
				t.Fatal(err)
			}
			return "file://" + filepath.Join(base, "state")
		}, refused: "belongs to another user"},
		{name: "a backend that is no folder is not checked", url: func(*testing.T, string) string {
			return "postgres://db/state"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			url := tt.url(t, base)
			err := checkFileBackend(url)
			if tt.refused == "" {
				if err != nil {
					t.Fatalf("checkFileBackend(%s) = %v, want the backend used", url, err)
				}
				if root, ok := strings.CutPrefix(url, "file://"); ok {
					root, _, _ = strings.Cut(root, "?")
					if info, err := os.Stat(root); err != nil || !info.IsDir() || info.Mode().Perm()&0o022 != 0 {
						t.Errorf("the state's folder %s: %v %v, want a folder only its user may write in", root, info, err)
					}
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.refused) || !strings.Contains(err.Error(), BackendEnv) {
				t.Fatalf("checkFileBackend(%s) = %v, want a refusal naming %s and saying %q", url, err, BackendEnv, tt.refused)
			}
		})
	}
}
