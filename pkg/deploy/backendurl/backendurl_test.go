package backendurl_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/backendurl"
)

// A file backend's relative folder is the one under the folder the command runs in, for the
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
		if got, err := backendurl.Absolute(tt.url); err != nil || got != tt.want {
			t.Errorf("%s is handed on as %q (%v), want %q", tt.url, got, err, tt.want)
		}
	}
}

// A backend URL of a scheme the Pulumi CLI opens nothing at is refused, naming the schemes it may
// begin with and never the URL; the schemes it opens, as the CLI writes them, and a bare host name
// of Pulumi Cloud, pass.
// Promise: unknown-backend-scheme-refused
func TestABackendURLOfAnUnknownSchemeIsRefusedNamingTheSchemes(t *testing.T) {
	for _, tt := range []struct {
		url     string
		refused bool
	}{
		{"fil:///tmp/state", true},
		{"fil:/tmp/state", true},
		{"file:/tmp/state", true},
		{"postgress:u:hunter2@db/state", true},
		{"api.example.com:8443", false},
		{"api.example.com:8443/org", false},
		{"postgress://u:hunter2@db/state", true},
		{"FILE:///tmp/state", true},
		{"file:///tmp/state", false},
		{"postgres://u:hunter2@db/state", false},
		{"postgresql://u:hunter2@db/state", false},
		{"s3://bucket?region=fra1", false},
		{"https://api.pulumi.com", false},
		{"app.pulumi.com", false},
	} {
		err := backendurl.Known(tt.url)
		if (err != nil) != tt.refused {
			t.Errorf("%s: %v, want refused %v", tt.url, err, tt.refused)
			continue
		}
		if err != nil && (!strings.Contains(err.Error(), "file://, s3://") || strings.Contains(err.Error(), "hunter2")) {
			t.Errorf("%s: %q, want the schemes named, and no password", tt.url, err)
		}
	}
}
