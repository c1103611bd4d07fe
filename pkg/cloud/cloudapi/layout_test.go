package cloudapi_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cloud is reached through its client package under pkg/cloud: an HTTP client built, a request
// made by hand or a list paged anywhere else would be a second way to the same API, with its own
// retries and status rules. The loopback clouds (pkg/loopback) serve the APIs and page their
// answers; tests may do as they need.
func TestCloudRequestsAndPagesAreMadeOnlyUnderPkgCloud(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	signs := []string{"http.Client{", "http.NewRequest", "IsLastPage()", "per_page"}
	for _, top := range []string{"pkg", "iac", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			if d.IsDir() && (rel == "pkg/cloud" || rel == "pkg/loopback") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, sign := range signs {
				if strings.Contains(string(data), sign) {
					t.Errorf("%s has %q: reach the cloud through its client package under pkg/cloud", rel, sign)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
