package serve_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
)

// A backup as docs/api.md's operations section takes it (pg_dump --format=custom of serve's
// database, taken while a job runs), restored into a database of its own (pg_restore) with no
// replica running: a replica started on it authenticates the tokens made before the dump, and
// the job that was running when the dump was taken is given back by its lease and deploys its
// object, Ready for its generation within a minute of the start.
//
// Promise: api-restored-dump-served
func TestADumpRestoredIsServedAndTheJobRunningWhenItWasTakenIsTakenUp(t *testing.T) {
	srv := pgtest.Start(t)
	src := srv.Database("serve")
	dead := killMidJob(t, src, 0) // its lease has run out by the time the dump is restored
	dump := filepath.Join(srv.Dir(), "serve.dump")
	srv.Run("pg_dump", "--format=custom", "--file", dump, "--dbname", src)
	dead.api.Close()
	dead.Store.Close()

	restored := srv.Database("restored")
	srv.Run("pg_restore", "--no-owner", "--dbname", restored, dump)
	started := time.Now()
	url, _, _ := launch(t, restored, 1)
	s := &service{t: t, url: url, tokens: map[auth.Role]string{auth.Viewer: dead.editor.tokens[auth.Editor]}}
	s.waitReady("/api/v1/clusters/" + dead.object)
	t.Logf("the restored database's running job ended Ready %s after the replica started", time.Since(started).Round(time.Millisecond))
}
