//go:build unix

package ownedfs

import (
	"io/fs"
	"syscall"
)

// checksOwner: unix systems say who owns a file and who may write it.
const checksOwner = true

// owner is the uid that owns the file, -1 when the system does not say.
func owner(info fs.FileInfo) int {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}
