//go:build e2e && linux

package e2e_test

import "syscall"

// procattr has the kernel kill a control-plane process when the test binary dies (a timeout's
// panic, a kill): no etcd or API server outlives the test, whichever way it ends.
func procattr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
