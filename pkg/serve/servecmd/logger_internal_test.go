package servecmd

import (
	"bytes"
	"strings"
	"testing"
)

// serve's log goes through the run's redaction: a cloud token of the environment or the
// database's password in a line is masked, in either format.
// Promise: api-logs-never-a-token
func TestTheLogNeverHoldsTheRunsSecretsInEitherFormat(t *testing.T) {
	const token, password = "dop_v1_not-a-real-token-0123456789", "s3cret-passw0rd"
	t.Setenv("DIGITALOCEAN_TOKEN", token)
	for _, format := range []string{"text", "json"} {
		t.Run("in "+format, func(t *testing.T) {
			var out bytes.Buffer
			o := &options{logFormat: format, databaseURL: "postgres://serve:" + password + "@db.example/serve"}
			log, err := o.logger(&out)
			if err != nil {
				t.Fatal(err)
			}
			log.Error("request failed", "error", "GET /v2/account: Authorization: Bearer "+token+" to postgres://serve:"+password+"@db.example")
			if strings.Contains(out.String(), token) || strings.Contains(out.String(), password) {
				t.Errorf("the log holds a secret: %s", out.String())
			}
			if !strings.Contains(out.String(), "request failed") {
				t.Errorf("the line itself is gone: %q", out.String())
			}
		})
	}
}

// A replica whose database several replicas can share, but whose stacks' state is in a folder of
// its own machine, warns at its start; an SQLite file (one machine) or a shared backend does not.
// Promise: api-warns-of-an-unshared-backend
func TestAReplicaOnPostgreSQLWarnsWhenItsStacksStateIsALocalFolder(t *testing.T) {
	for _, tc := range []struct {
		name, database, backend string
		warns                   bool
	}{
		{"PostgreSQL with a file backend warns", "postgres://db/serve", "file:///var/state", true},
		{"PostgreSQL with no backend named warns", "postgres://db/serve", "", true},
		{"PostgreSQL with a postgres backend does not", "postgres://db/serve", "postgres://db/state", false},
		{"an SQLite file with a file backend does not", "sqlite:serve.db", "file:///var/state", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := unsharedBackend(tc.database, tc.backend)
			if (got != "") != tc.warns {
				t.Errorf("unsharedBackend(%q, %q) = %q, want a warning %v", tc.database, tc.backend, got, tc.warns)
			}
		})
	}
}
