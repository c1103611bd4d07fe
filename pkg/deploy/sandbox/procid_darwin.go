package sandbox

import (
	"bytes"
	"encoding/binary"

	"github.com/pkg/errors"
	"golang.org/x/sys/unix"
)

// readProcess reads what the kernel tells of process pid: its real uid (kern.proc.pid), its
// command line and environment (kern.procargs2: argc, the executable's path, argv, environ, each
// ended by NULs). macOS gives no other process's working folder through sysctl: a serve started
// with a relative --dir (Start gives an absolute one) cannot be told apart, and is refused.
func readProcess(pid int) (processInfo, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return processInfo{}, errors.Wrapf(err, "read process %d", pid)
	}
	p := processInfo{uid: int(kp.Eproc.Pcred.P_ruid)}
	buf, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return processInfo{}, errors.Wrapf(err, "read process %d's command line", pid)
	}
	if len(buf) < 4 {
		return processInfo{}, errors.Errorf("read process %d's command line: %d bytes", pid, len(buf))
	}
	argc := int(binary.LittleEndian.Uint32(buf[:4]))
	rest := buf[4:]
	// The executable's path, then NULs up to the first argument.
	if i := bytes.IndexByte(rest, 0); i >= 0 {
		rest = rest[i:]
	}
	rest = bytes.TrimLeft(rest, "\x00")
	var all []string
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, 0)
		if i <= 0 {
			break
		}
		all = append(all, string(rest[:i]))
		rest = rest[i+1:]
	}
	if argc > len(all) {
		return processInfo{}, errors.Errorf("read process %d's command line: %d arguments of %d", pid, len(all), argc)
	}
	p.argv, p.environ = all[:argc], all[argc:]
	return p, nil
}
