package autostack

import (
	"os"
	"path/filepath"
	"testing"
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
