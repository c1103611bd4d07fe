//go:build e2e && !linux

package e2e_test

import "syscall"

// procattr: elsewhere only t.Cleanup stops the control plane.
func procattr() *syscall.SysProcAttr { return nil }
