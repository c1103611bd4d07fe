package autostack

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// tornCheckpoint is a *deploy.TornCheckpointError when the engine's text says a stack's state is
// not whole JSON and the stack's checkpoint in a file backend is indeed torn; nil otherwise. The
// backup the CLI keeps of the checkpoint before (<stack>.json.bak) is named only when it is there.
func tornCheckpoint(text string, b *Backend, s *stackOf) error {
	if b == nil || s == nil || !strings.Contains(text, "unexpected end of JSON input") {
		return nil
	}
	root, ok := strings.CutPrefix(b.url, "file://")
	if !ok {
		return nil
	}
	path := filepath.Join(root, ".pulumi", "stacks", s.project, s.stack+".json")
	data, err := os.ReadFile(path)
	if err != nil || json.Valid(data) {
		return nil
	}
	torn := &stackstate.TornCheckpointError{Path: path}
	if backup, err := os.ReadFile(path + ".bak"); err == nil && json.Valid(backup) {
		torn.Backup = path + ".bak"
	}
	return torn
}
