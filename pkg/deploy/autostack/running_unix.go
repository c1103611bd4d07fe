//go:build !windows

package autostack

import (
	"errors"
	"syscall"
)

// running tells whether a process of this machine with id pid runs: signal 0 checks without
// sending anything, and a process of another user answers EPERM, which is running too.
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
