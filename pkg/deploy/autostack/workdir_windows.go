package autostack

import "os"

// ownedByMe is true on Windows: the temporary folder is the user's own.
func ownedByMe(os.FileInfo) bool { return true }

// alive tells whether process pid runs: Windows opens only a process that does.
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
