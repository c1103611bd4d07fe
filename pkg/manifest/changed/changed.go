// Package changed tells which manifest files changed since a git commit, as a pull request's CI
// asks (`--changed-since origin/main`): the files git sees changed between the commit and the
// working tree, committed or not, and the files git does not track yet.
package changed

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/pkg/errors"
)

// Files are the files, absolute and cleaned, that changed in the git work tree holding dir since
// ref: modified, added or renamed since that commit (deleted ones are gone, so none is listed),
// and the untracked ones git does not ignore. It fails, naming ref, when dir is in no work tree,
// git is not installed, or ref names no commit.
func Files(ctx context.Context, dir, ref string) (map[string]bool, error) {
	if strings.HasPrefix(ref, "-") {
		// A ref starting with a dash would be read by git as an option.
		return nil, errors.Errorf("--changed-since %q: not a commit (a ref cannot start with -)", ref)
	}
	top, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, errors.Wrap(err, "--changed-since needs the manifests in a git work tree")
	}
	root := strings.TrimSpace(top)
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	if _, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", ref+"^{commit}"); err != nil {
		return nil, errors.Errorf("--changed-since %q: git knows no such commit (fetch it first, e.g. git fetch origin main)", ref)
	}
	diff, err := git(ctx, root, "diff", "--name-only", "--diff-filter=d", "-z", ref, "--")
	if err != nil {
		return nil, errors.Wrapf(err, "--changed-since %q", ref)
	}
	untracked, err := git(ctx, root, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return nil, errors.Wrapf(err, "--changed-since %q", ref)
	}
	out := map[string]bool{}
	for _, name := range strings.Split(diff+untracked, "\x00") {
		if name != "" {
			out[filepath.Clean(filepath.Join(root, name))] = true
		}
	}
	return out, nil
}

// git runs git in dir and returns its output; its error carries git's own first line.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		first, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		if first == "" {
			return "", err
		}
		return "", errors.New(first)
	}
	return stdout.String(), nil
}
