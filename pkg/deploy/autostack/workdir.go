package autostack

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/ownedfs"
	"github.com/pkg/errors"
)

// A stack's workspace holds its Pulumi.yaml and Pulumi.<stack>.yaml, the stack's encryption salt
// among them: each lives in a folder of its own, made by clusterplane in a folder of the user's
// own under the temporary folder, named after the process, and removed when the stack is closed.
// The Automation API would otherwise make a pulumi_auto* folder per stack and never remove it.

// workspacesRoot is the folder every workspace of this user lives in: <tmp>/clusterplane-<uid>,
// made 0700, and refused when someone else made it first or may write in it (a shared /tmp): a
// stack's Pulumi.<stack>.yaml, read back by the engine, is there. It is refused, not repaired: a
// folder that was open to others may hold what they put there.
func workspacesRoot() (string, error) {
	name := "clusterplane"
	if uid := os.Getuid(); uid >= 0 {
		name += "-" + strconv.Itoa(uid)
	}
	root, err := ownedfs.MkdirAll(os.TempDir(), name)
	if err != nil {
		return "", errors.Wrap(err, "the folder for the stacks' workspaces (set TMPDIR to another folder to use that instead)")
	}
	return root, nil
}

// newWorkDir makes the folder of one stack's workspace: <root>/<pid>-<random>, 0700.
func newWorkDir() (string, error) {
	root, err := workspacesRoot()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(root, fmt.Sprintf("%d-*", os.Getpid()))
	return dir, errors.Wrap(err, "create the stack's workspace")
}

// sweepWorkDirs removes the workspaces of processes that ended without removing them (killed),
// leaving those of the processes still running, this one's among them. A folder it cannot
// remove stays for the next sweep.
func sweepWorkDirs() {
	root, err := workspacesRoot()
	if err != nil {
		return
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		head, _, ok := strings.Cut(e.Name(), "-")
		pid, err := strconv.Atoi(head)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || alive(pid) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(root, e.Name()))
	}
}
