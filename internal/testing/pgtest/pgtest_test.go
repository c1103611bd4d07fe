package pgtest_test

import (
	"database/sql"
	"errors"
	"io/fs"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	_ "github.com/lib/pq"

	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
)

func TestAServerServesItsDatabasesAndIsGoneWhenItsTestEnds(t *testing.T) {
	var dir string
	var port int
	// The server belongs to the subtest, so its cleanup has run when t.Run returns.
	ran := t.Run("server", func(t *testing.T) {
		s := pgtest.Start(t)
		dir, port = s.Dir(), s.Port()
		first, second := s.Database("first"), s.Database("second")
		if want := "postgres://clusterplane@127.0.0.1:" + strconv.Itoa(port) + "/first?sslmode=disable"; first != want {
			t.Errorf("Database(first) = %q, want %q", first, want)
		}
		for name, url := range map[string]string{"first": first, "second": second} {
			db, err := sql.Open("postgres", url)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var one int
			var current string
			if err := db.QueryRow("SELECT 1, current_database()").Scan(&one, &current); err != nil {
				t.Fatalf("SELECT 1 on %s: %v", url, err)
			}
			if one != 1 || current != name {
				t.Errorf("SELECT 1, current_database() on %s = %d, %q; want 1, %q", url, one, current, name)
			}
		}
		if _, err := os.Stat(s.DataDir()); err != nil {
			t.Errorf("the data folder while the server runs: %v", err)
		}
	})
	if dir == "" {
		if !ran {
			return // the subtest failed before the server started, and says why
		}
		t.Skip("the server did not start (PostgreSQL is not installed)")
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the server's folder %s after its test ended: %v, want removed", dir, err)
	}
	// The server is stopped, not only its folder removed: nothing answers on its port.
	if c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second); err == nil {
		c.Close()
		t.Errorf("something still listens on port %d after the server's test ended", port)
	}
}
