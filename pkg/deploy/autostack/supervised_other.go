//go:build !linux

package autostack

import "os/exec"

// supervised leaves cmd as it is: outside Linux no process can adopt the plugins the CLI starts
// (a child subreaper) nor learn of its parent's death, and the CLI runs unsupervised, as before.
func supervised(*exec.Cmd) bool { return false }
