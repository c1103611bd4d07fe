package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

// Issue 33 item 2: a truncated manifest in a folder must not pass CI, which may run preview or up
// rather than validate. Every deploy command refuses the folder before any stack is touched.
func TestEveryDeployCommandRefusesAFolderHoldingAnEmptyFileAndTouchesNoStack(t *testing.T) {
	for _, empty := range []struct{ name, text string }{{"empty", ""}, {"only comments", "# to come\n"}} {
		for _, args := range [][]string{{"preview"}, {"up", "--yes"}, {"refresh"}, {"drift"}, {"status"}, {"destroy", "--yes"}} {
			t.Run(empty.name+"/"+args[0], func(t *testing.T) {
				dir := fleet(t)
				if err := os.WriteFile(filepath.Join(dir, "truncated.yaml"), []byte(empty.text), 0o600); err != nil {
					t.Fatal(err)
				}
				b := deploytest.New()
				r := deployRun(t, b, strings.NewReader(""), false, append(args, dir)...)
				says := filepath.Join(dir, "truncated.yaml") + ": holds no manifest: the file is empty or only comments"
				if r.code != exitcode.Invalid || !strings.Contains(r.stderr, says) {
					t.Errorf("%v: exit %d, want %d saying %q\nstdout:\n%s\nstderr:\n%s", args, r.code, exitcode.Invalid, says, r.stdout, r.stderr)
				}
				if b.Has("digitaloceankubernetescluster/platform-prod") || b.Has("digitaloceankubernetesnodepool/workers") {
					t.Errorf("%v opened a stack of a folder it refused", args)
				}
			})
		}
	}
}
