package cli_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

func TestAnUnknownKindIsQuotedShortAndWithoutControlCharacters(t *testing.T) {
	tests := []struct{ name, kind, says string }{
		{"a kind of 10,000 characters", strings.Repeat("K", 10000), `unknown kind "` + strings.Repeat("K", 64) + `"… (10000 bytes); want one of`},
		{"a kind with terminal escapes", "Evil\x1b[2J\x1b]0;pwned\x07", `unknown kind "Evil\x1b[2J\x1b]0;pwned\a"; want one of`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			text := "apiVersion: digitalocean.clusterplane.dev/v1\nkind: " + strconv.Quote(tt.kind) + "\nmetadata:\n  name: a\n"
			if err := os.WriteFile(filepath.Join(dir, "x.yaml"), []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			r := run("validate", dir)
			if r.code != exitcode.Invalid || !strings.Contains(r.stderr, tt.says) {
				t.Fatalf("exit %d, want 1 saying %s; stderr:\n%.500s", r.code, tt.says, r.stderr)
			}
			if len(r.stderr) > 400 {
				t.Errorf("stderr is %d bytes long", len(r.stderr))
			}
			if strings.ContainsFunc(r.stdout+r.stderr, func(c rune) bool { return c < ' ' && c != '\n' }) {
				t.Errorf("a control character reached the output: %q", r.stdout+r.stderr)
			}
		})
	}
}
