// Package backendurl reads the URL of a Pulumi backend as the Pulumi CLI reads it, before a
// command opens it: the schemes that name a backend, and the folder a relative file:// URL names.
package backendurl

import (
	"path/filepath"
	"strings"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
)

// Schemes are the beginnings of the URLs the Pulumi CLI opens a backend at: its own folder and
// bucket backends, PostgreSQL (both spellings), and Pulumi Cloud or a self-hosted Pulumi service.
// The CLI matches them as written, in lower case.
var Schemes = []string{"file://", "s3://", "gs://", "azblob://", "postgres://", "postgresql://", "https://", "http://"}

// Known refuses a URL of a scheme the CLI opens no backend at: the CLI would take one such as
// fil:///tmp/x or fil:/tmp/x for a Pulumi Cloud address and ask for a login, which says nothing of
// the mistyped scheme. A URL without a scheme (a host name of Pulumi Cloud, with or without its
// port) is left to the CLI. The error does not quote the URL, which may hold a password.
func Known(url string) error {
	if !hasScheme(url) {
		return nil
	}
	for _, scheme := range Schemes {
		if strings.HasPrefix(url, scheme) {
			return nil
		}
	}
	return errors.Errorf("it names no backend: a backend's URL begins with one of %s", strings.Join(Schemes, ", "))
}

// hasScheme tells whether url begins with a scheme (letters, digits, +, - or . before a colon,
// the first a letter), and not with a host name and its port (api.example.com:8443).
func hasScheme(url string) bool {
	name, rest, ok := strings.Cut(url, ":")
	if !ok || name == "" || !isLetter(rune(name[0])) {
		return false
	}
	for _, r := range name {
		if !isLetter(r) && !(r >= '0' && r <= '9') && r != '+' && r != '-' && r != '.' {
			return false
		}
	}
	port, _, _ := strings.Cut(rest, "/")
	return port == "" || strings.Trim(port, "0123456789") != ""
}

func isLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// Absolute is a file backend's URL naming a relative folder (file://state, file://./state) made to
// name it from the current folder, as the Pulumi CLI reads it when run there; any other URL as it
// is. The engine runs in a workspace folder of its own, where a relative folder would be another
// one than the one the command's locks and reads use.
func Absolute(url string) (string, error) {
	root, err := stackmark.FileRoot(url)
	if err != nil || root == "" || filepath.IsAbs(root) {
		return url, err
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", errors.Wrap(err, "find the folder the backend's file:// URL names")
	}
	query := ""
	if i := strings.Index(url, "?"); i >= 0 {
		query = url[i:]
	}
	return "file://" + filepath.ToSlash(abs) + query, nil
}
