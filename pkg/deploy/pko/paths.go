package pko

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/pkg/errors"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// WorkspaceImage is the workspace image a release's export names unless another is given: the
// one deploy/pko/Dockerfile builds, tagged with clusterplane's version.
const WorkspaceImage = "ghcr.io/clusterplane/workspace"

// DefaultImage is the workspace image a build of version v names: its own tag on a release (vX.Y.Z,
// as deploy/pko/Dockerfile's build command tags it), and
// none on a development build, whose version (0.0.0, or a pseudo-version or +dirty of go build
// from a checkout) names no published image.
func DefaultImage(v string) (string, error) {
	sv := "v" + v
	if v == "0.0.0" || !semver.IsValid(sv) || semver.Build(sv) != "" || module.IsPseudoVersion(sv) {
		return "", errors.Errorf("--image is required: this clusterplane is a development build (version %s), and %s has no image of that tag; "+
			"build deploy/pko/Dockerfile, push it, and pass --image REGISTRY/NAME:TAG (a release build defaults to its own tag)", v, WorkspaceImage)
	}
	return WorkspaceImage + ":v" + v, nil
}

// From is what a file is said to come from: the manifest it exports, or what the namespace needs.
func (f File) From(opts Options) string {
	if f.Target.File == "" {
		return "what the namespace needs (service account " + opts.ServiceAccount + ")"
	}
	if opts.Manifest != nil {
		return opts.Manifest(f.Target.File)
	}
	return f.Target.File
}

// ManifestPaths is what the clusterplane.dev/manifest annotation says of a file: its path from
// the root of the git repository holding it, else from the folder given (args) it
// was found in, else its name; with forward slashes. The same tree exported on any machine, from
// any checkout, gives the same annotation, where an absolute path differed from one to the next.
func ManifestPaths(args []string) func(string) string {
	var dirs []string
	for _, arg := range args {
		if info, err := os.Stat(arg); err == nil && info.IsDir() {
			if abs, err := filepath.Abs(arg); err == nil {
				dirs = append(dirs, abs)
			}
		}
	}
	return func(file string) string {
		if file == stackinput.Stdin {
			return file
		}
		abs, err := filepath.Abs(file)
		if err != nil {
			return filepath.ToSlash(filepath.Base(file))
		}
		if root, ok := gitRoot(filepath.Dir(abs)); ok {
			if rel, err := filepath.Rel(root, abs); err == nil {
				return filepath.ToSlash(rel)
			}
		}
		for _, dir := range dirs {
			if rel, err := filepath.Rel(dir, abs); err == nil && !strings.HasPrefix(rel, "..") {
				return filepath.ToSlash(rel)
			}
		}
		return filepath.Base(abs)
	}
}

// gitRoot is the nearest folder from dir upwards holding .git (a folder, or a worktree's file).
func gitRoot(dir string) (string, bool) {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}
