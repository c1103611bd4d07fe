package pipeline

import (
	"net"
	"net/url"
	"os"
	"slices"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

// sandboxWait is how long a loopback API of the sandbox is given to take a connection. A running
// sandbox takes it at once; the time only bounds a host that drops the attempt.
const sandboxWait = 2 * time.Second

// sandboxRunning refuses, before any stack runs, the targets of a cloud whose sandbox API does not
// answer: a shell that still holds `clusterplane sandbox env`'s variables after `sandbox stop`.
// Without this the engine would run against a closed port, fail at the provider's first call and
// leave the stack marked failed by a run that never reached a cloud. Outside the sandbox
// ($CLUSTERPLANE_SANDBOX unset) nothing is checked: a real API's outage is the engine's to meet.
func sandboxRunning(targets []deploytarget.Target) error {
	dir := os.Getenv(cloudfacts.SandboxEnv)
	if dir == "" {
		return nil
	}
	var problems []error
	var asked []string
	for _, t := range targets {
		c, _, _, ok := stackinput.ProviderConfig(t.Input)
		if !ok {
			continue
		}
		base := os.Getenv(c.URLEnv)
		u, err := url.Parse(base)
		if base == "" || err != nil || u.Host == "" || slices.Contains(asked, base) {
			continue
		}
		asked = append(asked, base)
		conn, err := net.DialTimeout("tcp", hostPort(u), sandboxWait)
		if err == nil {
			_ = conn.Close()
			continue
		}
		problems = append(problems, &stackinput.Error{Problems: []stackinput.Problem{{File: t.File, RuleID: "sandbox.stopped",
			Message: "the clusterplane sandbox in " + dir + " is not running: nothing answers at " + base + " (" + c.URLEnv +
				"). Start it again with eval \"$(clusterplane sandbox env)\", or run the command as clusterplane sandbox -- " +
				"clusterplane ...; nothing was run"}}})
	}
	if len(problems) > 0 {
		return &deploytarget.ProblemsError{Problems: problems}
	}
	return nil
}

// hostPort is the address a URL's requests go to, its scheme's port where it names none.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	port := "443"
	if u.Scheme == "http" {
		port = "80"
	}
	return net.JoinHostPort(u.Hostname(), port)
}
