package autostack

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// writeBlob writes text (encoded as encoded says) at path, making its folders.
func writeBlob(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, encoded(t, text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// dated sets a folder's modification time.
func dated(t *testing.T, folder string, when time.Time) {
	t.Helper()
	if err := os.Chtimes(folder, when, when); err != nil {
		t.Fatal(err)
	}
}

// The states of every stack of a project share one folder: a backend reads its listing once for
// all of them (a status of N stacks read N listings of N names), and still sees what changed.
func TestTheFolderOfEveryStacksStateIsListedOnceAndWhatChangesInItIsSeen(t *testing.T) {
	root := t.TempDir()
	stacks := filepath.Join(root, ".pulumi", "stacks", "p")
	writeBlob(t, filepath.Join(root, ".pulumi", "meta.yaml"), meta)
	const n = 50
	for i := range n {
		writeBlob(t, filepath.Join(stacks, fmt.Sprintf("s%02d.json", i)), checkpoint)
		writeBlob(t, filepath.Join(stacks, fmt.Sprintf("s%02d.json.bak", i)), checkpoint)
	}
	// Changed an hour ago: a listing read now is kept.
	before := time.Now().Add(-time.Hour)
	dated(t, stacks, before)
	b := &Backend{url: "file://" + root}
	records := func(stack string) error {
		_, err := b.Records(context.Background(), "p", stack)
		return err
	}
	for i := range n {
		if err := records(fmt.Sprintf("s%02d", i)); err != nil {
			t.Fatalf("s%02d: %v", i, err)
		}
	}
	kept, ok := b.folders.byPath[stacks]
	if len(b.folders.byPath) != 1 || !ok || len(kept.names) != 2*n {
		t.Fatalf("listings kept %v, want the one of %s, of %d names", b.folders.byPath, stacks, 2*n)
	}
	// A stack deployed in the same instant as the folder's last change seen (its time unchanged)
	// is found, and one never deployed is not.
	writeBlob(t, filepath.Join(stacks, "new.json.zst"), "zst:"+checkpoint)
	dated(t, stacks, before)
	if err := records("new"); err != nil {
		t.Errorf("a stack deployed since the listing: %v", err)
	}
	if err := records("none"); !errors.Is(err, stackstate.ErrNotDeployed) {
		t.Errorf("a stack never deployed: %v, want ErrNotDeployed", err)
	}
	// A second form of a stack's state, in the same instant, is seen as well.
	writeBlob(t, filepath.Join(stacks, "s00.json.gz"), "gz:"+checkpoint)
	dated(t, stacks, before)
	if err := records("s00"); !errors.Is(err, stackstate.ErrRecordsUnread) {
		t.Errorf("a state kept in two forms: %v, want ErrRecordsUnread", err)
	}
	// A form this does not read, written later (the folder's time changed), is seen by a new
	// listing.
	writeBlob(t, filepath.Join(stacks, "s01.json.br"), "brotli")
	later := before.Add(time.Minute)
	dated(t, stacks, later)
	if err := records("s01"); !errors.Is(err, stackstate.ErrRecordsUnread) {
		t.Errorf("a state in a form clusterplane does not read: %v, want ErrRecordsUnread", err)
	}
	if got := b.folders.byPath[stacks]; !got.modified.Equal(later) {
		t.Errorf("the listing kept is of %s, want the folder's new time %s", got.modified, later)
	}
	// A folder changed just now is listed again at each look, not kept: a change in the same
	// instant would leave its time as it is.
	writeBlob(t, filepath.Join(stacks, "s02.json.br"), "brotli")
	if err := records("s02"); !errors.Is(err, stackstate.ErrRecordsUnread) {
		t.Errorf("a state in a form clusterplane does not read: %v, want ErrRecordsUnread", err)
	}
	if got := b.folders.byPath[stacks]; !got.modified.Equal(later) {
		t.Errorf("a listing of a folder changed just now was kept (%s)", got.modified)
	}
}
