package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud"
)

// Inside the sandbox, a PULUMI_CONFIG_PASSPHRASE of the user's shell is unset, so that the
// sandbox's stacks always open with its generated passphrase file, in a command run inside and
// in a shell entered with `eval "$(clusterplane sandbox env)"`.
// Promise: sandbox-stacks-open-with-its-passphrase
func TestInsideTheSandboxTheStacksOpenWithItsPassphraseFileNeverTheShells(t *testing.T) {
	dir := t.TempDir()
	urls := map[cloud.ID]string{}
	env := Environ([]string{"PULUMI_CONFIG_PASSPHRASE=the-shells-own", "HOME=/home/u"}, dir, Engine{}, urls)
	for _, kv := range env {
		if strings.HasPrefix(kv, "PULUMI_CONFIG_PASSPHRASE=") {
			t.Errorf("the sandbox's environment keeps %s", kv)
		}
	}
	if want := "PULUMI_CONFIG_PASSPHRASE_FILE=" + filepath.Join(dir, passphraseFile); !hasEntry(env, want) {
		t.Errorf("the sandbox's environment has no %s: %v", want, env)
	}
	lines := ShellLines(dir, Engine{}, &Server{URLs: urls})
	if len(lines) == 0 || lines[0] != "unset PULUMI_CONFIG_PASSPHRASE" {
		t.Errorf("sandbox env does not first unset the shell's passphrase: %v", lines)
	}
}

// sandbox env keeps Go's build cache the user's: a GOCACHE the shell set stays (an eval run twice
// finds the first one's), and without one it names the user's own cache, not the sandbox's.
// Promise: sandbox-gocache-stays-yours
func TestSandboxEnvKeepsTheShellsGoBuildCache(t *testing.T) {
	dir := t.TempDir()
	home, err := os.UserCacheDir()
	if err != nil {
		t.Skip("no user cache folder on this machine")
	}
	for _, tc := range []struct {
		name, gocache string
		set           bool
		want          string
	}{
		{"a GOCACHE the shell set stays", "/home/u/my-go-cache", true, "/home/u/my-go-cache"},
		{"a GOCACHE an earlier eval exported stays", filepath.Join(home, "go-build"), true, filepath.Join(home, "go-build")},
		{"without one, the user's own cache is named", "", false, filepath.Join(home, "go-build")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.set {
				t.Setenv("GOCACHE", tc.gocache)
			} else {
				t.Setenv("GOCACHE", "")
				os.Unsetenv("GOCACHE")
			}
			var got []string
			for _, line := range ShellLines(dir, Engine{}, &Server{URLs: map[cloud.ID]string{}}) {
				if strings.HasPrefix(line, "export GOCACHE=") {
					got = append(got, line)
				}
			}
			if want := "export GOCACHE=" + shellQuote(tc.want); len(got) != 1 || got[0] != want {
				t.Errorf("sandbox env's GOCACHE lines %v, want exactly %s", got, want)
			}
		})
	}
}

func hasEntry(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
