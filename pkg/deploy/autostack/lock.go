package autostack

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
)

var _ deploy.Locker = (*stackOf)(nil)

// Locked tells whether the stack's lock is held. A file backend keeps each lock as a file under
// .pulumi/locks/<organization>/<project>/<stack>/, which stays when the CLI is killed holding it;
// other backends keep theirs out of reach, and are not known.
func (s *stackOf) Locked(context.Context) (locked, known bool, err error) {
	root, ok := strings.CutPrefix(s.backend.url, "file://")
	if !ok {
		return false, false, nil
	}
	dir := filepath.Join(root, ".pulumi", "locks", "organization", s.project, s.stack)
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return false, true, nil
	}
	if err != nil {
		return false, false, errors.Wrap(err, "read the stack's locks")
	}
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			return true, true, nil
		}
	}
	return false, true, nil
}

var _ deploy.Canceler = (*stackOf)(nil)

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
