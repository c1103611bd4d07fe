package sandbox

import (
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

func hasEntry(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
