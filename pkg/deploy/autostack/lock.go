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
	names, err := store.list(ctx, path.Join(".pulumi", "locks", "organization", s.project, s.stack))
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

// lockHolder is what the CLI writes into a lock: the process that took it and its machine
// (pkg/backend/diy/lock.go, lockContent, in pulumi/pulumi v3.259.0).
type lockHolder struct {
	Pid      int    `json:"pid"`
	Hostname string `json:"hostname"`
}

// DeadHolder names the processes that took the stack's Pulumi locks when every one of them was a
// process of this machine that no longer runs (stackstate.Stack); "" when the stack holds no lock,
// or when any lock's process may still run: another machine's, one running (or its id taken by
// another process since), a lock that does not say, or a backend whose locks are out of reach.
func (s *stackOf) DeadHolder(ctx context.Context) (string, error) {
	store, err := s.backend.blobs(ctx)
	if errors.Is(err, stackstate.ErrRecordsUnread) {
		return "", nil
	}
	if err != nil {
		return "", errors.Wrap(err, "read the stack's locks")
	}
	dir := path.Join(".pulumi", "locks", "organization", s.project, s.stack)
	names, err := store.list(ctx, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", errors.Wrap(err, "read the stack's locks")
	}
	host, err := os.Hostname()
	if err != nil {
		return "", nil
	}
	var dead []string
	for _, name := range names {
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		data, err := store.read(ctx, path.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue // released meanwhile
		}
		var h lockHolder
		if err != nil || json.Unmarshal(data, &h) != nil || h.Pid <= 0 || h.Hostname != host || running(h.Pid) {
			return "", nil
		}
		dead = append(dead, fmt.Sprintf("process %d of %s", h.Pid, h.Hostname))
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
