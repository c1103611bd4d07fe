package stackstate

import (
	"context"
	"strings"

	"github.com/pkg/errors"
)

// History reads the history of stack key (<project>/<stack>), newest first: ErrNotDeployed when
// the stack does not exist. A way in that marks its updates (UpOptions.Message) reads here which
// of them are its own, and what came after.
func History(ctx context.Context, b Backend, key string) ([]Update, error) {
	project, stack, _ := strings.Cut(key, "/")
	s, err := b.Open(ctx, project, stack, nil)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	h, err := s.History(ctx)
	return h, errors.Wrapf(err, "read the history of stack %s", key)
}
