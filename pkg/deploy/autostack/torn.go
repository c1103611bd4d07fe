package autostack

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// tornCheckpoint is a *deploy.TornCheckpointError when the engine's text says a stack's state is
// not whole JSON and the stack's checkpoint in a file backend is indeed torn; nil otherwise. It
// names a whole copy to restore where there is one: the backup the CLI keeps of the checkpoint
// before (<stack>.json.bak), else the newest checkpoint the backend's history kept of an update.
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
	switch backup, err := os.ReadFile(path + ".bak"); {
	case err == nil && json.Valid(backup):
		torn.Backup = path + ".bak"
		return torn
	case err == nil:
		torn.BesideTorn = true
	}
	torn.Backup, torn.FromHistory = newestWholeCheckpoint(filepath.Join(root, ".pulumi", "history", s.project, s.stack), s.stack)
	return torn
}

// newestWholeCheckpoint is the newest checkpoint in a stack's history folder that is whole JSON:
// the file backend writes one, <stack>-<time>.checkpoint.json, as each update ends, so it holds
// the state that update left. The times are Unix nanoseconds of one width, so the names sort as
// the times do. "" when there is none.
func newestWholeCheckpoint(dir, stack string) (path string, found bool) {
	names, err := filepath.Glob(filepath.Join(dir, stack+"-*.checkpoint.json"))
	if err != nil {
		return "", false
	}
	slices.Sort(names)
	for _, name := range slices.Backward(names) {
		if data, err := os.ReadFile(name); err == nil && json.Valid(data) {
			return name, true
		}
	}
	return "", false
}
