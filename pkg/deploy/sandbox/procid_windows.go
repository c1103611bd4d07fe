package sandbox

import (
	"os"

	"github.com/pkg/errors"
	"golang.org/x/sys/windows"
)

// sandboxProcess refuses pid unless it runs this very clusterplane executable, as the process
// Start starts does: stop kills the process sandbox.json names, and a stale or crafted file must
// never have another program killed. Windows gives another process's command line only from its
// memory, so neither its subcommand nor its folder is checked here, only its program.
func sandboxProcess(pid int, dir string) error {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return errors.Wrapf(err, "open process %d", pid)
	}
	defer windows.CloseHandle(h)
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n := uint32(len(buf))
	if err := windows.QueryFullProcessImageName(h, 0, &buf[0], &n); err != nil {
		return errors.Wrapf(err, "read process %d's program", pid)
	}
	exe, err := os.Executable()
	if err != nil {
		return errors.Wrap(err, "find clusterplane's own program")
	}
	theirs, errT := os.Stat(windows.UTF16ToString(buf[:n]))
	ours, errO := os.Stat(exe)
	if errT != nil || errO != nil || !os.SameFile(theirs, ours) {
		return errors.Errorf("it does not run this clusterplane (%s)", exe)
	}
	return nil
}
