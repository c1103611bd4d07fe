//go:build !windows

package autostack

import (
	"os"
	"syscall"
)

// ownedByMe tells whether this process's user owns the file.
func ownedByMe(info os.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// alive tells whether process pid runs: a signal 0 reaches it, or it runs as another user.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
