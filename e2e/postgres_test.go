//go:build e2e

package e2e_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
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

// RequirePostgresEnv, set by .ci/run (which installs Debian's postgresql), turns a missing
// PostgreSQL from a skip into a failure.
const RequirePostgresEnv = "CLUSTERPLANE_REQUIRE_POSTGRES"

// postgres is a throwaway PostgreSQL server: a cluster initdb makes in a temporary folder,
// listening on 127.0.0.1 only, on a free port, trusted without a password, stopped and removed
// when the test ends.
type postgres struct {
	t    *testing.T
	bin  string
	dir  string
	port int
	// as runs a command as the server's owner: PostgreSQL refuses to run as root.
	as []string
}

// postgresBin is the folder of Debian's PostgreSQL server programs, the newest installed.
func postgresBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
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

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func startPostgres(t *testing.T) *postgres {
	t.Helper()
	bin, err := postgresBin()
	if err != nil {
		if os.Getenv(RequirePostgresEnv) != "" {
			t.Fatal(err)
		}
		t.Skip("PostgreSQL is not installed, so the shared-backend scenarios cannot run here: " + err.Error())
	}
	// Not under t.TempDir: its parent is private to this user, and the server may run as another.
	dir, err := os.MkdirTemp("", "clusterplane-postgres-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	p := &postgres{t: t, bin: bin, dir: dir}
	if os.Geteuid() == 0 {
		owner, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root, PostgreSQL needs another user to run as, and there is no user postgres: %v", err)
		}
		uid, _ := strconv.Atoi(owner.Uid)
		gid, _ := strconv.Atoi(owner.Gid)
		if err := os.Chown(p.dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		p.as = []string{"runuser", "-u", "postgres", "--"}
	}
	data := filepath.Join(p.dir, "data")
	p.run("initdb", "-D", data, "-A", "trust", "-U", "clusterplane", "--no-sync")
	// A port free when picked can be taken before the server binds it: another test (or a
	// kube-apiserver) may pick the same one in between. That is retried on another port;
	// anything else stops the test.
	for attempt := 1; ; attempt++ {
		p.port = freePort(t)
		_ = os.Remove(filepath.Join(p.dir, "log"))
		// Loopback only, the socket in the test's folder, fsync off: it lives as long as the test.
		out, err := p.try("pg_ctl", "-D", data, "-l", filepath.Join(p.dir, "log"), "-w", "-t", "60", "-o",
			fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c fsync=off", p.port, p.dir), "start")
		if err == nil {
			break
		}
		log, _ := os.ReadFile(filepath.Join(p.dir, "log"))
		if attempt < 5 && bytes.Contains(log, []byte("Address already in use")) {
			t.Logf("port %d was taken before PostgreSQL bound it; trying another", p.port)
			continue
		}
		t.Fatalf("pg_ctl start on port %d: %v\n%s\nserver log:\n%s", p.port, err, out, log)
	}
	t.Cleanup(func() {
		// A stopped server is removed with the test's folder.
		_ = p.command("pg_ctl", "-D", data, "-m", "immediate", "stop").Run()
	})
	return p
}

// freePort is a TCP port on 127.0.0.1 nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (p *postgres) command(program string, args ...string) *exec.Cmd {
	argv := append(append(append([]string{}, p.as...), filepath.Join(p.bin, program)), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = p.dir
	return cmd
}

func (p *postgres) run(program string, args ...string) string {
	p.t.Helper()
	out, err := p.try(program, args...)
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(p.dir, "log"))
		p.t.Fatalf("%s %s: %v\n%s\nserver log:\n%s", program, strings.Join(args, " "), err, out, log)
	}
	return out
}

// try runs one of the server's programs, bounded to two minutes, and returns what it printed.
func (p *postgres) try(program string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := p.command(program, args...)
	cmd = exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
	cmd.Dir = p.dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// database creates a database and returns the Pulumi backend URL of it.
func (p *postgres) database(name string) string {
	p.t.Helper()
	p.run("createdb", "-h", "127.0.0.1", "-p", strconv.Itoa(p.port), "-U", "clusterplane", name)
	return fmt.Sprintf("postgres://clusterplane@127.0.0.1:%d/%s?sslmode=disable", p.port, name)
}

// dump is every row of a database, as pg_dump writes them: what the backend keeps at rest.
func (p *postgres) dump(name string) string {
	p.t.Helper()
	return p.run("pg_dump", "-h", "127.0.0.1", "-p", strconv.Itoa(p.port), "-U", "clusterplane", "--data-only", name)
}
