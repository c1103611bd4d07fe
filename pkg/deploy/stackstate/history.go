package stackstate

import (
	"context"
	"strings"

	"github.com/pkg/errors"
)

// HistoryReader is a Stack that reads its whole history: every operation that finished on it,
// refreshes included, newest first, each with its Version.
type HistoryReader interface {
	History(ctx context.Context) ([]Update, error)
}

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
	hr, ok := s.(HistoryReader)
	if !ok {
		return nil, errors.Errorf("the backend's stack %s cannot read its history", key)
	}
	h, err := hr.History(ctx)
	return h, errors.Wrapf(err, "read the history of stack %s", key)
}
