package autostack

import (
	"context"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"io/fs"
	"path"
	"strings"

	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
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
