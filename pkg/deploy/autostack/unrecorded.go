package autostack

import (
	"bytes"
	"context"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/pkg/errors"
)

// writtenSinceRecord tells whether the stack's checkpoint (state, as read) was written after its
// newest history record: an edit the records cannot tell of, such as `pulumi stack import` or
// `pulumi state delete`, which save the checkpoint and add no record. The CLI writes each record
// with a copy of the checkpoint it leaves beside it, <stack>-<nanoseconds>.checkpoint.json (.gz or
// .zst when the backend compresses; addToHistory in pkg/backend/diy/state.go, pulumi/pulumi v3.259.0),
// so a checkpoint that is not that copy was written since. A stack with no record, or whose newest
// record has no copy beside it, is taken as written since too: nothing vouches for its state.
func writtenSinceRecord(ctx context.Context, store blobs, project, stack string, state []byte) (bool, error) {
	dir := path.Join(".pulumi", "history", project, stack)
	keys, err := store.list(ctx, dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, errors.Wrapf(err, "read the history of stack %s/%s", project, stack)
	}
	var records []string
	for _, k := range keys {
		name, _, ok := strings.Cut(k, ".history.")
		if ok && strings.HasPrefix(name, stack+"-") && knownForm(k, ".history.json") {
			records = append(records, name)
		}
	}
	if len(records) == 0 {
		return true, nil
	}
	// The names differ only in their nanoseconds, of one length: the newest sorts last.
	sort.Strings(records)
	copyName, err := recordAmong(dir, records[len(records)-1]+".checkpoint.json", keys)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	copied, err := readRecord(ctx, store, path.Join(dir, copyName))
	if err != nil {
		return false, errors.Wrapf(err, "read the checkpoint the newest record of stack %s/%s copied", project, stack)
	}
	return !bytes.Equal(copied, state), nil
}

// historyHeld tells whether the backend's storage holds a history of stack <project>/<stack>:
// records of a stack of that name, whatever became of its checkpoint (false where the storage is
// not read here: a local file or PostgreSQL backend's is), and the checkpoint's files it holds.
func (b *Backend) historyHeld(ctx context.Context, project, stack string) (bool, []string) {
	store, err := b.blobs(ctx)
	if err != nil {
		return false, nil
	}
	keys, err := store.list(ctx, path.Join(".pulumi", "history", project, stack))
	if err != nil || len(keys) == 0 {
		return false, nil
	}
	kept, err := store.named(ctx, path.Join(".pulumi", "stacks", project), stack+".json")
	return err == nil, kept
}

// removeCheckpoint deletes stack <project>/<stack>'s checkpoint, in each form the CLI writes it
// (.json, compressed, its .bak) but the files in kept, there before, and leaves its history: the
// stack is gone, as `pulumi stack rm` leaves it, but what a person recovers it from is not.
func (b *Backend) removeCheckpoint(ctx context.Context, project, stack string, kept []string) error {
	store, err := b.blobs(ctx)
	if err != nil {
		return err
	}
	dir := path.Join(".pulumi", "stacks", project)
	names, err := store.named(ctx, dir, stack+".json")
	if err != nil {
		return errors.Wrapf(err, "find the checkpoint of stack %s/%s", project, stack)
	}
	for _, name := range names {
		if slices.Contains(kept, name) {
			continue
		}
		if err := store.remove(ctx, path.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return errors.Wrapf(err, "remove the checkpoint of stack %s/%s", project, stack)
		}
	}
	return nil
}
