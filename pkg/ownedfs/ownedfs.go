// Package ownedfs makes and checks the folders clusterplane trusts: the folders it puts on PATH,
// runs plugins from and keeps state in. Such a folder is trusted only when this user owns it and
// no one else may write in it; otherwise whoever made it first (another user of a shared /tmp, a
// cloned repository) would choose what clusterplane runs, with the user's cloud token in its
// environment, or what state it reads.
package ownedfs

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pkg/errors"
)

// NotOwnedError is a folder or file clusterplane refuses to trust, and why.
type NotOwnedError struct {
	Path string
	// Reason says what is wrong, in words that end "...: " before the advice.
	Reason string
	// UID owns the path (-1 where the system has no uids), Mode is its mode as Lstat reads it.
	UID  int
	Mode fs.FileMode
	// Advice says what to do.
	Advice string
}

func (e *NotOwnedError) Error() string {
	return fmt.Sprintf("%s %s (owner uid %d, mode %s; this user is uid %d): %s",
		e.Path, e.Reason, e.UID, e.Mode, os.Getuid(), e.Advice)
}

// Check refuses path unless it is a folder (not a link to one) that this user owns and that
// neither its group nor others may write in.
func Check(path string) error { return check(path, fs.ModeDir, false) }

// CheckFile refuses path unless it is a regular file (not a link to one) that this user owns and
// that neither its group nor others may write.
func CheckFile(path string) error { return check(path, 0, false) }

// CheckInstalled is Check for a folder clusterplane did not make but runs programs from (the
// engine that `make engine` builds): root may own it too, as an installed program's folder, since
// root can change anything this user runs anyway.
func CheckInstalled(path string) error { return check(path, fs.ModeDir, true) }

// CheckInstalledFile is CheckFile for a program clusterplane did not make but runs (the engine's
// CLI and provider plugins): root may own it too. A folder of the user's alone is not enough:
// a plugin file anyone may write, in it, is still anyone's program, run with the cloud token.
func CheckInstalledFile(path string) error { return check(path, 0, true) }

// check refuses path unless its type is typ and it is this user's alone (or root's, with
// rootToo). Lstat, not Stat: a link planted where the folder should be is refused, never followed.
func check(path string, typ fs.FileMode, rootToo bool) error {
	info, err := os.Lstat(path)
	if err != nil {
		return errors.Wrapf(err, "check %s", path)
	}
	uid := owner(info)
	refuse := func(reason, advice string) error {
		return &NotOwnedError{Path: path, Reason: reason, UID: uid, Mode: info.Mode(), Advice: advice}
	}
	what := "a folder"
	if typ == 0 {
		what = "a regular file"
	}
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return refuse("is a symbolic link, not "+what, "clusterplane does not follow links here; remove it (rm "+path+") and run again")
	case info.Mode().Type() != typ:
		return refuse("is not "+what, "remove it or move it away, and run again")
	case checksOwner && uid != os.Getuid() && !(rootToo && uid == 0):
		return refuse("belongs to another user", "someone else made it first, and could change what clusterplane runs or reads "+
			"there; remove it (as its owner or root) and run again, or point clusterplane elsewhere (TMPDIR, XDG_CACHE_HOME, --dir)")
	case checksOwner && info.Mode().Perm()&0o022 != 0:
		return refuse("may be written by its group or others", "anyone who may write there could change what clusterplane runs or reads; "+
			"make it private (chmod go-w "+path+") or remove it, and run again")
	}
	return nil
}

// MkdirAll makes the folders elems, one inside the other, in parent, each 0700 when made, and
// checks every one of them, made now or found, as Check does: a folder someone else made first
// at any of those names is refused, not used. It returns the innermost folder. parent itself is
// the caller's (the user's cache folder, the shared temporary folder): made when missing, not
// checked; in a shared one, such as /tmp, its sticky bit keeps others from renaming ours.
func MkdirAll(parent string, elems ...string) (string, error) {
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return "", errors.Wrapf(err, "create %s", parent)
	}
	dir := parent
	for _, e := range elems {
		if e == "" || e == "." || e == ".." || filepath.Base(e) != e {
			return "", errors.Errorf("ownedfs.MkdirAll: %q is not one folder's name", e)
		}
		dir = filepath.Join(dir, e)
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", errors.Wrapf(err, "create %s", dir)
		}
		if err := Check(dir); err != nil {
			return "", err
		}
	}
	return dir, nil
}
