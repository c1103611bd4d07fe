//go:build !windows

package autostack

import "syscall"

// alive tells whether process pid runs: a signal 0 reaches it, or it runs as another user.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
