package autostack

import "os"

// alive tells whether process pid runs: Windows opens only a process that does.
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
