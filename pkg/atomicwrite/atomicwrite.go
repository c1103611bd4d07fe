// Package atomicwrite writes a file so that no reader ever sees half of it and no link already
// at its name is followed.
package atomicwrite

import (
	"os"
	"path/filepath"
)

// File writes data to path through a new file in the same folder renamed over path. A rename
// replaces the name itself: a symbolic link already there is replaced, never followed to
// overwrite whatever it points at, and a reader never sees a half-written file. The file is
// readable by all (0644): what clusterplane writes so (plans, exported resources, discovered
// manifests) holds no secret and is meant to be committed.
func File(path string, data []byte) error { return write(path, data, 0o644) }

// Private is File for a secret (a token the sandbox keeps): the file is its owner's alone (0600)
// from the moment it exists.
func Private(path string, data []byte) error { return write(path, data, 0o600) }

func write(path string, data []byte, mode os.FileMode) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		// The temporary file's name is ours, not the caller's: say the path asked for (a folder
		// that does not exist, one not writable).
		if pe, ok := err.(*os.PathError); ok {
			return &os.PathError{Op: "write", Path: path, Err: pe.Err}
		}
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	// CreateTemp makes the file readable by its owner only.
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// NewPrivate writes data to a file it makes at path, readable by its owner only (0600) from the
// moment it exists; a file or a link already at path is an error, never written through.
func NewPrivate(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
