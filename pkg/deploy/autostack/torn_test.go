package autostack

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// A torn checkpoint is named with the command that restores a whole copy: the backup beside it,
// else the newest whole checkpoint of the backend's history; where neither is whole, the error
// says which copies it looked at and asks for the user's own backups.
func TestATornCheckpointIsNamedWithTheCommandThatRestoresItsBackupOnlyWhenThereIsOne(t *testing.T) {
	// The engine's words (Pulumi CLI 3.259, e2e: `stack export` of a checkpoint cut in half).
	const engine = "failed to export stack: exit status 255\ncode: 255\nstdout: \nstderr: error: failed to load checkpoint: place 1: unexpected end of JSON input\n"
	tests := []struct {
		name       string
		checkpoint string
		backup     string
		// history are the stack's history checkpoints, by name.
		history map[string]string
		// torn tells a TornCheckpointError; says what it says; restores the file it names to copy.
		torn     bool
		says     string
		restores string
	}{
		{"torn, with a whole backup", `{"version": 3, "checkpoint": {"sta`, `{"version": 3}`, nil, true, "kept of the one before it", "s.json.bak"},
		{"torn, no backup", `{"version": 3, "checkpoint": {"sta`, "", nil, true, "there is no copy beside it", ""},
		{"torn, the backup torn too", `{"version": 3, "checkpoint": {"sta`, `{"vers`, nil, true, "is torn too, and the backend's history holds no whole checkpoint", ""},
		{"torn, the backup torn too and a history", `{"version": 3, "checkpoint": {"sta`, `{"vers`, map[string]string{
			"s-1764430000000000000.checkpoint.json": `{"version": 3}`,
			"s-1764439999000000000.checkpoint.json": `{"version": 3}`,
			"s-1764439999000000000.history.json":    `{}`,
			"s-1764449999000000000.checkpoint.json": `{"vers`,
		}, true, "is torn too. Restore the checkpoint the backend's history kept", "s-1764439999000000000.checkpoint.json"},
		{"torn, no backup and a history", `{"version": 3, "checkpoint": {"sta`, "", map[string]string{
			"s-1764430000000000000.checkpoint.json": `{"version": 3}`,
		}, true, "there is no copy beside it", "s-1764430000000000000.checkpoint.json"},
		{"whole: the words came from elsewhere", `{"version": 3}`, `{"version": 3}`, nil, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, ".pulumi", "stacks", "p")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "s.json")
			if err := os.WriteFile(path, []byte(tt.checkpoint), 0o600); err != nil {
				t.Fatal(err)
			}
			if tt.backup != "" {
				if err := os.WriteFile(path+".bak", []byte(tt.backup), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			history := filepath.Join(root, ".pulumi", "history", "p", "s")
			for name, text := range tt.history {
				if err := os.MkdirAll(history, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(history, name), []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			b := &Backend{url: "file://" + root}
			err := classify(context.Background(), "read the stack's state", errors.New(engine), "", b, &stackOf{backend: b, project: "p", stack: "s"})
			var torn *stackstate.TornCheckpointError
			if errors.As(err, &torn) != tt.torn {
				t.Fatalf("classify = %T %v, torn checkpoint %t", err, err, tt.torn)
			}
			if !tt.torn {
				return
			}
			if !strings.Contains(err.Error(), tt.says) || !strings.Contains(err.Error(), path) {
				t.Errorf("%v\ndoes not say %q and the checkpoint's path", err, tt.says)
			}
			restore := ""
			switch {
			case tt.restores == "s.json.bak":
				restore = "`cp " + path + ".bak " + path + "`"
			case tt.restores != "":
				restore = "`cp " + filepath.Join(history, tt.restores) + " " + path + "`"
			}
			if restore != "" && !strings.Contains(err.Error(), restore) || restore == "" && strings.Contains(err.Error(), "`cp ") {
				t.Errorf("%v\ndoes not give the command that restores %q", err, tt.restores)
			}
		})
	}
}
