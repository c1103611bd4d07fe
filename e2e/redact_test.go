//go:build e2e

package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
)

// The password of a PostgreSQL backend the engine cannot open: the engine quotes the URL, password
// and all, in its error; clusterplane must print neither in its errors, its progress nor its
// reports (the Markdown one is posted as a pull request comment).
const backendPassword = "S3cretPassw0rd"

// commandsOnTheBackend are every command form that opens the manifest's stack, as a user or CI
// runs them, the manifest's file appended.
var commandsOnTheBackend = [][]string{
	{"status"}, {"preview"}, {"up", "--yes"}, {"destroy", "--yes"}, {"kubeconfig"}, {"refresh"},
	{"status", "-o", "json"}, {"preview", "-o", "markdown"},
}

func TestAPasswordInTheBackendURLIsNeverPrinted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// Nothing listens on the port: the engine cannot reach the database.
	backend := fmt.Sprintf("postgres://clusterplane:%s@127.0.0.1:%d/state?sslmode=disable", backendPassword, pgtest.FreePort(t))
	e.vars = append(e.vars, "PULUMI_BACKEND_URL="+backend)
	e.expectRedacted(e.write("cluster.yaml", example(t, "digitaloceankubernetescluster/minimal.yaml")), "connection refused")
}

func TestAWrongPasswordOrAMissingDatabaseIsNeverPrinted(t *testing.T) {
	t.Parallel()
	db := pgtest.Start(t)
	db.Database("state")
	// The test's server trusts every connection; to refuse a wrong password it must ask for one.
	db.Run("psql", "-h", "127.0.0.1", "-p", strconv.Itoa(db.Port()), "-U", "clusterplane", "-d", "state", "-c",
		"ALTER USER clusterplane PASSWORD 'the-right-one'")
	hba := filepath.Join(db.DataDir(), "pg_hba.conf")
	if err := os.WriteFile(hba, []byte("local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	db.Run("pg_ctl", "-D", db.DataDir(), "reload")
	for _, c := range []struct{ name, password, database, says string }{
		{"wrong password", backendPassword, "state", "password authentication failed"},
		{"missing database", "the-right-one", "nosuchdb", "does not exist (3D000)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			backend := fmt.Sprintf("postgres://clusterplane:%s@127.0.0.1:%d/%s?sslmode=disable", c.password, db.Port(), c.database)
			e.vars = append(e.vars, "PULUMI_BACKEND_URL="+backend)
			e.expectRedacted(e.write("cluster.yaml", example(t, "digitaloceankubernetescluster/minimal.yaml")), c.says, c.password)
		})
	}
}

// expectRedacted runs every command form on the manifest in file against the test's backend,
// which the engine cannot open: each must fail, say why (says), and never print the password.
func (e *env) expectRedacted(file, says string, passwords ...string) {
	e.t.Helper()
	if len(passwords) == 0 {
		passwords = []string{backendPassword}
	}
	for _, args := range commandsOnTheBackend {
		args = append(append([]string{}, args...), file)
		r, code := e.clusterplane(args...)
		name := strings.Join(args[:len(args)-1], " ")
		if code == 0 {
			e.t.Errorf("%s exited 0 on a backend it cannot open:\n%s", name, r)
		}
		for _, password := range passwords {
			if strings.Contains(r.stdout+r.stderr, password) {
				e.t.Errorf("%s printed the backend's password %q:\n%s", name, password, r)
			}
		}
		if !strings.Contains(r.stdout+r.stderr, says) {
			e.t.Errorf("%s does not say %q:\n%s", name, says, r)
		}
		if strings.Contains(name, "json") {
			var report struct {
				Stacks []struct{ Error string } `json:"stacks"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &report); err != nil || len(report.Stacks) != 1 || !strings.Contains(report.Stacks[0].Error, "[redacted]") {
				e.t.Errorf("%s: the report's error does not say the URL redacted (%v):\n%s", name, err, r.stdout)
			}
		}
	}
}
