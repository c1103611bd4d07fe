// Package kubeconfigfile hands a cluster's kubeconfig, a secret, to another program: in a private
// file for as long as a command runs (Run), or in a file of the user's choosing (Write). The
// kubeconfig is never in what either returns or says: their errors name files and commands only.
package kubeconfigfile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/atomicwrite"
	"github.com/clusterplane/clusterplane/pkg/childproc"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/pkg/errors"
)

// Env is the variable that names the file to the command, as kubectl, helm and client-go read it.
const Env = "KUBECONFIG"

// Give hands kubeconfig on as `clusterplane kubeconfig` was asked to: to the file at path when
// one is given (Write, saying so on stderr), else to a run of argv (Run). It returns the exit
// code: the command's, or 1 (exitcode.Invalid) when the file cannot be written or the command
// cannot be run, the error then said with say.
func Give(kubeconfig []byte, path string, argv []string, stdin io.Reader, stdout, stderr io.Writer, say func(error)) int {
	code, err := 0, error(nil)
	if path != "" {
		if err = Write(path, kubeconfig); err == nil {
			fmt.Fprintf(stderr, "wrote the kubeconfig to %s\n", path)
		}
	} else {
		code, err = Run(kubeconfig, argv, stdin, stdout, stderr)
	}
	if err != nil {
		say(err)
		return max(code, exitcode.Invalid)
	}
	return code
}

// Run runs argv with KUBECONFIG naming a file that holds kubeconfig, and returns its exit code
// (childproc: 128 and the signal for a command a signal ended). The file is 0600, in a folder of
// its own made for this run (0700, in the system's temporary folder); both are removed once the
// command has ended, whether it succeeded, failed, could not start or was interrupted: SIGINT
// and SIGTERM are caught from before the file is written until it is removed. A SIGKILL ends
// clusterplane before it can remove anything.
func Run(kubeconfig []byte, argv []string, stdin io.Reader, stdout, stderr io.Writer) (code int, err error) {
	if len(argv) == 0 {
		return 0, errors.New("no command to run with the kubeconfig")
	}
	if err := check(kubeconfig); err != nil {
		return 0, err
	}
	guard := childproc.Catch()
	defer guard.Release()
	dir, err := os.MkdirTemp("", "clusterplane-kubeconfig-")
	if err != nil {
		return 0, errors.Wrap(err, "make a private folder for the kubeconfig")
	}
	defer func() {
		if rerr := os.RemoveAll(dir); rerr != nil && err == nil {
			err = errors.Wrapf(rerr, "remove the kubeconfig's folder %s", dir)
		}
	}()
	path := filepath.Join(dir, "kubeconfig")
	if err := atomicwrite.NewPrivate(path, kubeconfig); err != nil {
		return 0, errors.Wrap(err, "write the kubeconfig")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(without(os.Environ(), Env), Env+"="+path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	if code, err = guard.Run(cmd); err != nil {
		return 0, errors.Wrapf(err, "run %s", argv[0])
	}
	return code, nil
}

// Write writes kubeconfig to path, 0600 from the moment the file exists, whole or not at all: a
// file already at path, or a link there, is replaced, never written through.
func Write(path string, kubeconfig []byte) error {
	if err := check(kubeconfig); err != nil {
		return err
	}
	return errors.Wrap(atomicwrite.Private(path, kubeconfig), "write the kubeconfig")
}

// check refuses an empty kubeconfig: kubectl given one talks to localhost:8080 instead of failing.
func check(kubeconfig []byte) error {
	if len(bytes.TrimSpace(kubeconfig)) == 0 {
		return errors.New("the stack's kubeconfig output is empty")
	}
	return nil
}

// without is environ without name's entries.
func without(environ []string, name string) []string {
	var out []string
	for _, kv := range environ {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
