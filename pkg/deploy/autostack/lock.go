package autostack

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/pkg/errors"
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
	return classify(ctx, "cancel", s.auto.Cancel(ctx), "", s.backend, s)
}
