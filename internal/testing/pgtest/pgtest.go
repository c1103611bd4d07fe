// Package pgtest runs a throwaway PostgreSQL server for tests: a cluster initdb makes in a
// temporary folder, listening on 127.0.0.1 only, on a free port, trusting every connection
// without a password, stopped and removed when the test that started it ends. It uses Debian's
// PostgreSQL server programs (apt-get install postgresql); where they are missing the test is
// skipped, unless RequireEnv is set.
package pgtest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// RequireEnv, set by .ci/run (which installs Debian's postgresql), turns a missing PostgreSQL
// from a skip into a failure: in CI a test that needs the server must not pass by not running.
const RequireEnv = "CLUSTERPLANE_REQUIRE_POSTGRES"

// superuser is the role initdb makes; every URL and program connects as it.
const superuser = "clusterplane"

// Server is a running throwaway PostgreSQL server. Its methods fail the test that started it,
// so call them from that test's goroutine (not from its subtests' or other goroutines).
type Server struct {
	t    testing.TB
	bin  string
	dir  string
	port int
	// as runs a command as the server's owner: PostgreSQL refuses to run as root.
	as []string
}

// Start starts a server for t and stops and removes it when t ends. Where PostgreSQL is not
// installed it skips t, or fails it when RequireEnv is set. Running as root, the server runs as
// the user postgres (Debian's package makes it), since PostgreSQL will not run as root.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := serverBin()
	if err != nil {
		if os.Getenv(RequireEnv) != "" {
			t.Fatal(err)
		}
		t.Skip("PostgreSQL is not installed, so this test cannot run here: " + err.Error())
	}
	// Not under t.TempDir: its parent is private to this user, and the server may run as another.
	dir, err := os.MkdirTemp("", "clusterplane-postgres-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("removing the PostgreSQL folder: %v", err)
		}
	})
	s := &Server{t: t, bin: bin, dir: dir}
	if os.Geteuid() == 0 {
		owner, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root, PostgreSQL needs another user to run as, and there is no user postgres: %v", err)
		}
		uid, _ := strconv.Atoi(owner.Uid)
		gid, _ := strconv.Atoi(owner.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		s.as = []string{"runuser", "-u", "postgres", "--"}
	}
	data := s.DataDir()
	s.Run("initdb", "-D", data, "-A", "trust", "-U", superuser, "--no-sync")
	// Registered before the server starts (cleanups run last first, so before the folder is
	// removed): a start that timed out may still have left a server running. Stopping a server
	// that is not running only fails, which is fine here.
	t.Cleanup(func() {
		_, _ = s.try("pg_ctl", "-D", data, "-m", "immediate", "stop")
	})
	// A port free when picked can be taken before the server binds it: another test (or a
	// kube-apiserver) may pick the same one in between. That is retried on another port;
	// anything else stops the test.
	for attempt := 1; ; attempt++ {
		s.port = FreePort(t)
		_ = os.Remove(s.logFile())
		// Loopback only, the socket in the server's folder, fsync off: it lives as long as the test.
		out, err := s.try("pg_ctl", "-D", data, "-l", s.logFile(), "-w", "-t", "60", "-o",
			fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c fsync=off", s.port, s.dir), "start")
		if err == nil {
			break
		}
		log, _ := os.ReadFile(s.logFile())
		if attempt < 5 && bytes.Contains(log, []byte("Address already in use")) {
			t.Logf("port %d was taken before PostgreSQL bound it; trying another", s.port)
			continue
		}
		t.Fatalf("pg_ctl start on port %d: %v\n%s\nserver log:\n%s", s.port, err, out, log)
	}
	return s
}

// serverBin is the folder of Debian's PostgreSQL server programs, the newest installed, or else
// the folder of the initdb on PATH.
func serverBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return majorVersion(dirs[i]) > majorVersion(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("no initdb in /usr/lib/postgresql/*/bin or on PATH: install Debian's postgresql (apt-get install postgresql)")
}

// majorVersion is the version in a folder /usr/lib/postgresql/<version>/bin, 0 if it is none.
func majorVersion(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// FreePort is a TCP port on 127.0.0.1 nothing listens on now: the server's port, and for a test
// that wants a URL whose server refuses connections.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Port is the TCP port the server listens on, on 127.0.0.1.
func (s *Server) Port() int { return s.port }

// Dir is the server's folder: its data folder (DataDir), its log and its Unix socket. It is
// removed when the test ends.
func (s *Server) Dir() string { return s.dir }

// DataDir is the cluster's data folder, where its configuration (pg_hba.conf and the rest) lives.
func (s *Server) DataDir() string { return filepath.Join(s.dir, "data") }

func (s *Server) logFile() string { return filepath.Join(s.dir, "log") }

// Database creates the database name and returns its URL,
// postgres://clusterplane@127.0.0.1:<port>/<name>?sslmode=disable: what database/sql with
// github.com/lib/pq, pgx and Pulumi's PostgreSQL backend all take.
func (s *Server) Database(name string) string {
	s.t.Helper()
	s.Run("createdb", "-h", "127.0.0.1", "-p", strconv.Itoa(s.port), "-U", superuser, name)
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User(superuser),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)),
		Path:     "/" + name,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// Dump is every row of the database name, as pg_dump --data-only writes them: what is kept at
// rest, for a test to look for what must not be there.
func (s *Server) Dump(name string) string {
	s.t.Helper()
	return s.Run("pg_dump", "-h", "127.0.0.1", "-p", strconv.Itoa(s.port), "-U", superuser, "--data-only", name)
}

// Run runs one of the server's programs (psql, pg_ctl ...) as the server's owner, in its folder,
// and returns what it printed; it fails the test, with the server's log, if the program fails.
func (s *Server) Run(program string, args ...string) string {
	s.t.Helper()
	out, err := s.try(program, args...)
	if err != nil {
		log, _ := os.ReadFile(s.logFile())
		s.t.Fatalf("%s %s: %v\n%s\nserver log:\n%s", program, strings.Join(args, " "), err, out, log)
	}
	return out
}

// try runs one of the server's programs, bounded to two minutes so a stuck server cannot hang
// the test binary, and returns what it printed.
func (s *Server) try(program string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	argv := append(append(append([]string{}, s.as...), filepath.Join(s.bin, program)), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = s.dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}
