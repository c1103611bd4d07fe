package autostack

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pkg/errors"
)

// LockStack takes clusterplane's lock of a stack (stackstate.Backend) in the backend itself: in a
// file backend an flock(2) of a file under .pulumi/clusterplane-locks/, in a PostgreSQL backend a
// session advisory lock of the database. Both end with the process (the kernel drops the flock,
// PostgreSQL the session's locks when its connection goes), so a killed clusterplane leaves no
// lock behind. Object stores (s3, gs, azblob) and Pulumi Cloud offer neither: ErrNoStackLock.
func (b *Backend) LockStack(ctx context.Context, project, stack string) (func(), error) {
	switch {
	case strings.HasPrefix(b.url, "file://"):
		return lockFile(strings.TrimPrefix(b.url, "file://"), project, stack)
	case isPostgres(b.url):
		return lockPostgres(ctx, b.url, project, stack)
	}
	return nil, stackstate.ErrNoStackLock
}

// holder says who takes a lock, for the message of the one turned away.
func holder() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("pid %d on %s since %s", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
}

// lockFilePath is where a file backend keeps a stack's lock: beside Pulumi's own folders, never
// among them (Pulumi reads .pulumi/locks as its own).
func lockFilePath(root, project, stack string) string {
	return filepath.Join(root, ".pulumi", "clusterplane-locks", project, stack+".lock")
}

// advisoryKey is the PostgreSQL advisory lock key of a stack of the backend's table: one number
// of 64 bits, from a digest, so that another program's keys are not likely to meet it.
func advisoryKey(table, project, stack string) int64 {
	sum := sha256.Sum256([]byte("clusterplane stack lock\x00" + table + "\x00" + project + "/" + stack))
	return int64(binary.BigEndian.Uint64(sum[:8]))
}

// lockPostgres takes a session advisory lock of the stack on one connection of its own, held until
// unlock closes it. The URL is Pulumi's (its table parameter is Pulumi's, not libpq's).
func lockPostgres(ctx context.Context, backend, project, stack string) (func(), error) {
	db, table, err := openPostgres(backend)
	if err != nil {
		return nil, errors.Wrap(err, "lock the stack")
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		_ = db.Close()
		return nil, errors.Wrap(err, "lock the stack: connect to the PostgreSQL backend")
	}
	release := func() {
		_ = conn.Close()
		_ = db.Close()
	}
	key := advisoryKey(table, project, stack)
	var got bool
	if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock($1)", key).Scan(&got); err != nil {
		release()
		return nil, errors.Wrap(err, "lock the stack in the PostgreSQL backend")
	}
	if !got {
		release()
		return nil, &stackstate.StackBusyError{Holder: "a session of the PostgreSQL backend's database"}
	}
	return func() {
		// Closing the connection ends the session and so its lock; the unlock first is only tidier.
		_, _ = conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock($1)", key)
		release()
	}, nil
}
