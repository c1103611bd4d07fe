package autostack

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"

	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// Locked tells whether the stack's lock is held. The CLI keeps each lock as a blob
// .pulumi/locks/organization/<project>/<stack>/<id>.json (pkg/backend/diy/lock.go, lockPath, in
// pulumi/pulumi v3.259.0), which stays when the CLI is killed holding it: a file in a local
// backend, a row of the table in a PostgreSQL one. Other backends keep theirs out of reach, and
// are not known.
func (s *stackOf) Locked(ctx context.Context) (locked, known bool, err error) {
	store, err := s.backend.blobs(ctx)
	if errors.Is(err, stackstate.ErrRecordsUnread) {
		return false, false, nil
	}
	if err != nil {
		return false, false, errors.Wrap(err, "read the stack's locks")
	}
	names, err := store.list(ctx, s.lockDir())
	if errors.Is(err, fs.ErrNotExist) {
		return false, true, nil
	}
	if err != nil {
		return false, false, errors.Wrap(err, "read the stack's locks")
	}
	for _, name := range names {
		if strings.HasSuffix(name, ".json") {
			return true, true, nil
		}
	}
	return false, true, nil
}

// lockDir is the folder of the stack's Pulumi locks in the backend's store (Locked says where the
// CLI keeps them).
func (s *stackOf) lockDir() string {
	return path.Join(".pulumi", "locks", "organization", s.project, s.stack)
}

// lockHolder is what the CLI writes into a lock: the process that took it and its machine
// (pkg/backend/diy/lock.go, lockContent, in pulumi/pulumi v3.259.0).
type lockHolder struct {
	Pid      int    `json:"pid"`
	Hostname string `json:"hostname"`
}

// RemoveDeadLocks removes the stack's Pulumi locks when every one says it was taken by a process
// of this machine that no longer runs (stackstate.Stack), and names those processes; it removes
// nothing and says "" when the stack holds no lock, or when any lock's process may still run:
// another machine's, one running (or its id taken by another process since), a lock that does
// not say, or a backend whose locks are out of reach. Only the locks read are removed, by name:
// a lock another process takes meanwhile is its own blob, and stays.
func (s *stackOf) RemoveDeadLocks(ctx context.Context) (string, error) {
	store, err := s.backend.blobs(ctx)
	if err != nil {
		return "", nil // out of reach: the engine's own refusal names the lock
	}
	dir := s.lockDir()
	names, err := store.list(ctx, dir)
	if err != nil {
		return "", nil
	}
	host, err := os.Hostname()
	if err != nil {
		return "", nil
	}
	var dead, keys []string
	for _, name := range names {
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		key := path.Join(dir, name)
		data, err := store.read(ctx, key)
		if errors.Is(err, fs.ErrNotExist) {
			continue // released meanwhile
		}
		var h lockHolder
		if err != nil || json.Unmarshal(data, &h) != nil || h.Pid <= 0 || h.Hostname != host || running(h.Pid) {
			return "", nil
		}
		dead = append(dead, fmt.Sprintf("process %d of %s", h.Pid, h.Hostname))
		keys = append(keys, key)
	}
	for _, key := range keys {
		if err := store.remove(ctx, key); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", errors.Wrapf(err, "remove the Pulumi lock that %s, no longer running, left on stack %s/%s", strings.Join(dead, ", "), s.project, s.stack)
		}
	}
	return strings.Join(dead, ", "), nil
}

// PulumiLock tells whether stack <project>/<stack>'s Pulumi lock is held, read as Locked reads it
// without opening the stack, and the command that removes it (stackstate.Backend).
func (b *Backend) PulumiLock(ctx context.Context, project, stack string) (held, known bool, cancel string, err error) {
	s := &stackOf{backend: b, project: project, stack: stack}
	held, known, err = s.Locked(ctx)
	return held, known, s.CancelCommand(), err
}

// Cancel removes the engine's lock an operation whose process died left on the stack, as
// `pulumi cancel` does.
func (s *stackOf) Cancel(ctx context.Context) error {
	st := s.auto
	if p, ok := st.Workspace().(preselected); ok {
		// The API's Cancel runs the CLI through its own workspace type only, which an opened
		// stack's wrapper hides: select the stack in the workspace itself for it.
		var err error
		if st, err = auto.SelectStack(ctx, s.auto.Name(), p.Workspace); err != nil {
			return classify(ctx, "cancel", err, "", s.backend, s)
		}
	}
	return classify(ctx, "cancel", st.Cancel(ctx), "", s.backend, s)
}
