package autostack

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/blang/semver"
	"github.com/clusterplane/clusterplane/pkg/ownedfs"
	"github.com/pkg/errors"
)

// An interrupted CLI has cliWaitDelay to end before it is killed; its supervisor is told to end
// it with all it started cliTermBefore that.
var (
	cliWaitDelay  = 10 * time.Second
	cliTermBefore = 2 * time.Second
)

// cli runs the Pulumi CLI for the Automation API (it implements auto.PulumiCommand). It differs
// from the API's own in one way: the CLI's version is read once per binary and kept in the user's
// cache folder, since `pulumi version` costs a fifth of a second, a third of a preview.
type cli struct {
	path    string
	version semver.Version
}

var (
	cliOnce sync.Once
	cliMemo *cli
	cliErr  error
)

// findCLI finds the Pulumi CLI on PATH and its version, once per process.
func findCLI() (*cli, error) {
	cliOnce.Do(func() {
		path, err := exec.LookPath("pulumi")
		if err != nil {
			cliErr = errors.New("the Pulumi CLI is not on PATH: install it (https://www.pulumi.com/docs/install/), " +
				"or from a clone of this repository run `make engine` and put .engine/bin on PATH; to try clusterplane " +
				"without a cloud account, run it inside the sandbox: `clusterplane sandbox -- clusterplane up FILE` (docs/sandbox.md)")
			return
		}
		v, err := cliVersion(path)
		if err != nil {
			cliErr = err
			return
		}
		cliMemo = &cli{path: path, version: v}
	})
	return cliMemo, cliErr
}

// cliVersion is the version of the CLI at path, from the cache when the binary is unchanged.
func cliVersion(path string) (semver.Version, error) {
	info, err := os.Stat(path)
	if err != nil {
		return semver.Version{}, errors.Wrap(err, "find the Pulumi CLI")
	}
	key := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%d", path, info.Size(), info.ModTime().UnixNano())))
	cache := ""
	// The version read back is trusted only from a folder of this user's alone: one written by
	// someone else would let an older CLI pass the minimum-version check. A folder that is not
	// is not used (the plugin's folder beside it says why, loudly).
	if dir, err := os.UserCacheDir(); err == nil {
		if own, err := ownedfs.MkdirAll(dir, "clusterplane"); err == nil {
			cache = filepath.Join(own, "pulumi-version-"+hex.EncodeToString(key[:8]))
		}
	}
	if cache != "" {
		if data, err := os.ReadFile(cache); err == nil {
			if v, err := semver.ParseTolerant(strings.TrimSpace(string(data))); err == nil {
				return v, nil
			}
		}
	}
	cmd := exec.Command(path, "version")
	cmd.Env = append(os.Environ(), "PULUMI_SKIP_UPDATE_CHECK=true")
	out, err := cmd.Output()
	if err != nil {
		return semver.Version{}, errors.Wrap(err, "run `pulumi version`")
	}
	v, err := semver.ParseTolerant(strings.TrimSpace(string(out)))
	if err != nil {
		return semver.Version{}, errors.Wrapf(err, "read the Pulumi CLI's version %q", strings.TrimSpace(string(out)))
	}
	if cache != "" {
		_ = os.WriteFile(cache, []byte(v.String()), 0o600)
	}
	return v, nil
}

// Version is the CLI's version.
func (c *cli) Version() semver.Version { return c.version }

// resultUnread marks the context of an up, a refresh or a destroy whose result this package does
// not read (see withResultUnread).
type resultUnread struct{}

// withResultUnread is ctx for an Automation API operation whose result is discarded. After an up
// the API reads the stack's outputs (two CLI runs: one to find the secrets, one to show them) and
// its newest history entry, after a refresh or a destroy the history entry, only to fill in that
// result. Each read starts the CLI again, and those showing secrets derive the passphrase's key
// (1,000,000 rounds of PBKDF2): three of an up's five CLI runs. Under this context they are
// answered empty instead; the operation itself runs as ever.
func withResultUnread(ctx context.Context) context.Context {
	return context.WithValue(ctx, resultUnread{}, true)
}

// unreadResult is the empty answer to a read the Automation API makes, under withResultUnread,
// only to fill in a discarded result: ok is false for any other command.
func unreadResult(ctx context.Context, args []string) (stdout string, ok bool) {
	if ctx.Value(resultUnread{}) == nil || len(args) < 2 || args[0] != "stack" {
		return "", false
	}
	switch args[1] {
	case "output":
		return "{}", true
	case "history":
		return "[]", true
	}
	return "", false
}

// Run runs the CLI as the Automation API asks: never interactive, its output copied to the given
// writers, interrupted (as Ctrl-C would) when ctx ends so that the engine stops cleanly. On Linux
// it runs under a supervisor (package supervisor) that ends the plugins with it, whatever ends it.
func (c *cli) Run(ctx context.Context, workdir string, stdin io.Reader, additionalOutput, additionalErrorOutput []io.Writer,
	additionalEnv []string, args ...string) (string, string, int, error) {
	if stdout, ok := unreadResult(ctx, args); ok {
		return stdout, "", 0, nil
	}
	if head := args[:indexOr(args, "--", len(args))]; !slices.Contains(head, "--non-interactive") {
		args = append(append(append([]string{}, head...), "--non-interactive"), args[len(head):]...)
	}
	cmd := exec.CommandContext(ctx, c.path, args...)
	cmd.Dir = workdir
	cmd.Env = append(append(os.Environ(), additionalEnv...), "PULUMI_AUTOMATION_API=true")
	var stdout, stderr bytes.Buffer
	cmd.Stdout = io.MultiWriter(append(additionalOutput, &stdout)...)
	cmd.Stderr = io.MultiWriter(append(additionalErrorOutput, &stderr)...)
	cmd.Stdin = stdin
	ownProcessGroup(cmd)
	supervisor := supervised(cmd)
	var term *time.Timer
	cmd.Cancel = func() error {
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			_ = cmd.Process.Kill()
			return nil
		}
		if supervisor {
			// WaitDelay's SIGKILL would kill the supervisor alone, the CLI after it, and leave the
			// plugins running: SIGTERM first has the supervisor kill them all.
			term = time.AfterFunc(max(cliWaitDelay-cliTermBefore, 0), func() { _ = cmd.Process.Signal(syscall.SIGTERM) })
		}
		return nil
	}
	cmd.WaitDelay = cliWaitDelay
	err := cmd.Run()
	// Wait returns once Cancel has returned: term is set by then, if ever.
	if term != nil {
		term.Stop()
	}
	code := -2
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err == nil:
		code = 0
	}
	return stdout.String(), stderr.String(), code, err
}

func indexOr(args []string, s string, otherwise int) int {
	if i := slices.Index(args, s); i >= 0 {
		return i
	}
	return otherwise
}
