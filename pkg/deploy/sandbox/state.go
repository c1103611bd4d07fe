package sandbox

import (
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakeclouds"
	"github.com/pkg/errors"
)

// check refuses a sandbox.json (at path) whose fields the sandbox cannot have written: a process
// id that is not one process's (0 and -1 signal groups of processes), or a cloud's URL off this
// machine, where the commands run inside would send their requests, tokens included.
func (s Server) check(path string) error {
	return s.checkFor(path, clouds.IDs(), fakeclouds.Get)
}

// checkFor is check for the drivers ids, whose loopbacks get finds. A driver without a loopback
// is refused first, by its name: the sandbox serves no cloud for it, so its URL field is empty,
// and "remove the file" would send the user after a file that is not at fault.
func (s Server) checkFor(path string, ids []cloud.ID, get func(cloud.ID) (fakeclouds.Loopback, bool)) error {
	if s.PID <= 0 {
		return errors.Errorf("%s: field \"pid\" is %d, not a process's id: remove the file and run again", path, s.PID)
	}
	for _, id := range ids {
		if _, err := loopbackOf(id, get); err != nil {
			return err
		}
		if err := loopbackURL(s.URLs[id]); err != nil {
			return errors.Errorf("%s: field %q: %v; the sandbox's clouds are on this machine only: remove the file and run again",
				path, urlField(id), err)
		}
	}
	return nil
}

// loopbackURL refuses raw unless it is an http or https URL whose host is a loopback address
// (127.0.0.0/8, ::1) or localhost, without a user or password: the only URLs the sandbox's
// clouds have.
func loopbackURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		// url's own error quotes raw; a garbled URL is no secret of the user's.
		return errors.Wrap(err, "not a URL")
	}
	shown := u.Redacted()
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.Errorf("%q is not an http or https URL", shown)
	case u.User != nil:
		return errors.Errorf("%q carries a user", shown)
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || ip.Zone() != "" || !ip.Unmap().IsLoopback() {
		return errors.Errorf("%q is not on a loopback address (127.0.0.1, ::1 or localhost)", shown)
	}
	return nil
}

// processInfo is what the system tells of a running process.
type processInfo struct {
	// uid is the process's real user; -1 when the system does not say.
	uid     int
	argv    []string
	environ []string
	// cwd is its working folder; "" when the system does not say.
	cwd string
}

// servedDir is the sandbox folder a process serves, when it is a `clusterplane sandbox serve`:
// argv[1] is sandbox, the command after the sandbox's flags is serve, and the folder is --dir's,
// else its $CLUSTERPLANE_SANDBOX, else DefaultDir, against its working folder, as Dir finds it.
func servedDir(p processInfo) (string, bool) {
	if len(p.argv) < 3 || p.argv[1] != "sandbox" {
		return "", false
	}
	dir, serve := "", false
	for i := 2; i < len(p.argv); i++ {
		arg := p.argv[i]
		switch {
		case arg == "--":
			// serve takes no arguments: whatever follows made it fail.
			return "", false
		case arg == "--dir" || arg == "--engine":
			if i+1 < len(p.argv) && arg == "--dir" {
				dir = p.argv[i+1]
			}
			i++
		case strings.HasPrefix(arg, "--dir="):
			dir = strings.TrimPrefix(arg, "--dir=")
		case strings.HasPrefix(arg, "-"):
			// --engine=..., --reset, --help: no value of their own to skip.
		case serve || arg != "serve":
			return "", false
		default:
			serve = true
		}
	}
	if !serve {
		return "", false
	}
	if dir == "" {
		for _, kv := range p.environ {
			// The first of the name, as Go's os.Getenv reads it.
			if v, ok := strings.CutPrefix(kv, DirEnv+"="); ok {
				dir = v
				break
			}
		}
	}
	if dir == "" {
		dir = DefaultDir
	}
	if !filepath.IsAbs(dir) {
		if p.cwd == "" {
			return "", false
		}
		dir = filepath.Join(p.cwd, dir)
	}
	return filepath.Clean(dir), true
}

// sameFolder tells whether a and b name the same folder, through links too.
func sameFolder(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(ia, ib)
}
