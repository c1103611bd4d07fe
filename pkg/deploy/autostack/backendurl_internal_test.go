package autostack

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
)

// A file backend's relative folder is the one under the folder clusterplane runs in, for the
// engine too, which runs in a workspace of its own: the URL handed on names it whole. Other URLs
// are handed on as they are.
// Promise: relative-file-backend-is-the-current-folders
func TestARelativeFileBackendNamesTheFolderUnderTheCurrentOne(t *testing.T) {
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	here := "file://" + filepath.ToSlash(cwd)
	for _, tt := range []struct{ url, want string }{
		{"file://tmp/x", here + "/tmp/x"},
		{"file://./state", here + "/state"},
		{"file://state?no_legacy=true", here + "/state?no_legacy=true"},
		{"file:///srv/state", "file:///srv/state"},
		{"file://~/state", "file://~/state"},
		{"postgres://u:p@db/state", "postgres://u:p@db/state"},
		{"s3://bucket?region=fra1", "s3://bucket?region=fra1"},
	} {
		if got, err := absoluteFileURL(tt.url); err != nil || got != tt.want {
			t.Errorf("%s is handed on as %q (%v), want %q", tt.url, got, err, tt.want)
		}
	}
}

// A backend URL of a scheme the Pulumi CLI opens nothing at is refused before anything runs,
// naming the variable, the URL without its password and the schemes it may begin with; the
// schemes it opens, and a bare host name of Pulumi Cloud, pass.
// Promise: unknown-backend-scheme-refused
func TestABackendURLOfAnUnknownSchemeIsRefusedNamingTheSchemes(t *testing.T) {
	for _, tt := range []struct {
		url     string
		refused bool
	}{
		{"fil:///tmp/state", true},
		{"postgress://u:hunter2@db/state", true},
		{"file:///tmp/state", false},
		{"FILE:///tmp/state", false},
		{"postgres://u:hunter2@db/state", false},
		{"s3://bucket?region=fra1", false},
		{"https://api.pulumi.com", false},
		{"app.pulumi.com", false},
	} {
		err := (&Backend{url: tt.url}).knownScheme()
		if (err != nil) != tt.refused {
			t.Errorf("%s: %v, want refused %v", tt.url, err, tt.refused)
			continue
		}
		if err != nil && (!strings.Contains(err.Error(), BackendEnv) || !strings.Contains(err.Error(), "file://, s3://") ||
			strings.Contains(err.Error(), "hunter2")) {
			t.Errorf("%s: %q, want the variable and the schemes named, and no password", tt.url, err)
		}
	}
}

// Inside the sandbox the state stays in a file:// folder: another file:// folder passes, any other
// backend is refused, saying so, without its password.
func TestInsideTheSandboxOnlyAFileBackendIsOpened(t *testing.T) {
	t.Setenv(cloudfacts.SandboxEnv, "1")
	if err := (&Backend{url: "file:///tmp/elsewhere"}).staysInSandbox(); err != nil {
		t.Errorf("another file:// folder in the sandbox: %v, want it opened", err)
	}
	err := (&Backend{url: "postgres://u:hunter2@db/state"}).staysInSandbox()
	if err == nil || !strings.Contains(err.Error(), "stays in a file:// folder") || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("PostgreSQL in the sandbox: %v, want refused, naming file:// folders, without the password", err)
	}
}
