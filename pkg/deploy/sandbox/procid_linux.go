package sandbox

import (
	"os"
	"strconv"
	"strings"

	"github.com/pkg/errors"
)

// readProcess reads what /proc tells of process pid: its real uid (status), command line,
// environment and working folder. The last two are readable only for this user's processes
// (or by root), and are left empty when not.
func readProcess(pid int) (processInfo, error) {
	proc := "/proc/" + strconv.Itoa(pid)
	status, err := os.ReadFile(proc + "/status")
	if err != nil {
		return processInfo{}, errors.Wrapf(err, "read process %d", pid)
	}
	p := processInfo{uid: -1}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			if fields := strings.Fields(rest); len(fields) > 0 {
				if uid, err := strconv.Atoi(fields[0]); err == nil {
					p.uid = uid
				}
			}
		}
	}
	cmdline, err := os.ReadFile(proc + "/cmdline")
	if err != nil {
		return processInfo{}, errors.Wrapf(err, "read process %d", pid)
	}
	p.argv = nulSeparated(cmdline)
	if environ, err := os.ReadFile(proc + "/environ"); err == nil {
		p.environ = nulSeparated(environ)
	}
	p.cwd, _ = os.Readlink(proc + "/cwd")
	return p, nil
}

// nulSeparated splits what /proc gives as strings each ended by a NUL.
func nulSeparated(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}
