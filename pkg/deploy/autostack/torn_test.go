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

func TestATornCheckpointIsNamedWithTheCommandThatRestoresItsBackupOnlyWhenThereIsOne(t *testing.T) {
	// The engine's words (Pulumi CLI 3.259, e2e: `stack export` of a checkpoint cut in half).
	const engine = "failed to export stack: exit status 255\ncode: 255\nstdout: \nstderr: error: failed to load checkpoint: place 1: unexpected end of JSON input\n"
	tests := []struct {
		name       string
		checkpoint string
		backup     string
		// torn tells a TornCheckpointError; says what it says.
		torn bool
		says string
	}{
		{"torn, with a whole backup", `{"version": 3, "checkpoint": {"sta`, `{"version": 3}`, true, "`cp "},
		{"torn, no backup", `{"version": 3, "checkpoint": {"sta`, "", true, "no backup beside it"},
		{"torn, the backup torn too", `{"version": 3, "checkpoint": {"sta`, `{"vers`, true, "no backup beside it"},
		{"whole: the words came from elsewhere", `{"version": 3}`, `{"version": 3}`, false, ""},
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
			if tt.says == "`cp " && !strings.Contains(err.Error(), "`cp "+path+".bak "+path+"`") {
				t.Errorf("%v\ndoes not give the command that restores the backup", err)
			}
		})
	}
}
