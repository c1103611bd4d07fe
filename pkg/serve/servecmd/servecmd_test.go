package servecmd_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/serve/servecmd"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// Promise: api-sqlite-one-replica
// Promise: api-token-refuses-missing-sqlite-file
// Promise: api-controller-token-one-controller
func TestServeSaysWhatIsMissingBeforeItConnectsToAnything(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a database serve does not take", []string{"--database-url", "mysql://db/clusterplane"}, "not a database URL serve takes: postgres://... (PostgreSQL) or sqlite:PATH"},
		{"an SQLite URL without a file", []string{"--database-url", "sqlite:"}, "sqlite: names no file"},
		{"an SQLite file in a folder that is not there", []string{"--database-url", "sqlite:/nonexistent-folder/serve.db"}, "open the SQLite file /nonexistent-folder/serve.db: its folder /nonexistent-folder does not exist"},
		{"a token made where serve never ran", []string{"token", "create", "--name", "ci", "--role", "editor", "--database-url", "sqlite:" + filepath.Join(os.TempDir(), "nowhere-serve-ran.db")}, "serve makes it when it first starts"},
		{"workers only on SQLite", []string{"--database-url", "sqlite:serve.db", "--listen", ""}, "share a PostgreSQL database"},
		{"the API only on SQLite", []string{"--workers", "0"}, "share a PostgreSQL database"},
		{"a proxy that is no address", []string{"--database-url", "postgres://x", "--trusted-proxy", "proxy.example"}, `--trusted-proxy "proxy.example": not an address or a CIDR prefix`},
		{"an unknown proxy role", []string{"--database-url", "postgres://x", "--proxy-role", "root"}, "--proxy-role"},
		{"a drift check interval below zero", []string{"--database-url", "postgres://x", "--drift-every", "-1h"}, "--drift-every -1h0m0s: must be 0"},
		{"a drift check interval of a millisecond", []string{"--database-url", "postgres://x", "--drift-every", "1ms"}, "--drift-every 1ms: must be 0 (a check after each deploy only) or at least 1m"},
		{"a policy file that is not there", []string{"--database-url", "postgres://x", "--policy", "/nonexistent-folder/policy.yaml"}, "read the policy"},
		{"a log format serve does not write", []string{"--database-url", "postgres://x", "--log-format", "xml"}, `--log-format "xml": must be text or json`},
		{"a rescue before the stack's timeout", []string{"--database-url", "postgres://x", "--stack-timeout", "1h", "--rescue-after", "30m"}, "must be longer than --stack-timeout"},
		{"a shutdown grace below zero", []string{"--database-url", "postgres://x", "--shutdown-grace", "-1m"}, "--shutdown-grace -1m0s: must be 0"},
		{"a token without a role", []string{"token", "create", "--database-url", "postgres://x", "--name", "ci"}, "--role"},
		{"a token without a name", []string{"token", "create", "--database-url", "postgres://x", "--role", "editor"}, "--name"},
		{"a controller token without its controller", []string{"token", "create", "--database-url", "postgres://x", "--name", "probe", "--role", "controller"}, "--controller is required with --role controller"},
		{"a controller token for serve's own workers", []string{"token", "create", "--database-url", "postgres://x", "--name", "probe", "--role", "controller", "--controller", "clusterplane"}, "reserved for serve's own workers"},
		{"a controller token whose controller has a newline", []string{"token", "create", "--database-url", "postgres://x", "--name", "probe", "--role", "controller", "--controller", "probe\nclusterplane"}, "unprintable"},
		{"an editor token that names a controller", []string{"token", "create", "--database-url", "postgres://x", "--name", "ci", "--role", "editor", "--controller", "probe"}, "--controller is for --role controller only"},
		{"a token list on a database serve does not take", []string{"token", "list", "--database-url", "mysql://db"}, "not a database URL serve takes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(servecmd.DatabaseEnv, "")
			cmd := servecmd.New(registry.Kinds())
			var out bytes.Buffer
			cmd.SetOut(&out)
			cmd.SetErr(&out)
			cmd.SetArgs(tt.args)
			err := cmd.Execute()
			if err == nil || !strings.Contains(err.Error()+out.String(), tt.want) {
				t.Errorf("got %v %s, want an error saying %q", err, out.String(), tt.want)
			}
		})
	}
}

func TestServesHelpNeverShowsTheDatabasesPassword(t *testing.T) {
	t.Setenv(servecmd.DatabaseEnv, "postgres://clusterplane:S3cretPassw0rd@db/state")
	cmd := servecmd.New(registry.Kinds())
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--help"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "S3cretPassw0rd") {
		t.Errorf("--help shows the password: %s", out.String())
	}
}

func TestAWrongDatabasePasswordIsNeverPrinted(t *testing.T) {
	cmd := servecmd.New(registry.Kinds())
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	// Nothing listens on port 1: the driver fails, and its error must not carry the password.
	cmd.SetArgs([]string{"token", "list", "--database-url", "postgres://clusterplane:S3cretPassw0rd@127.0.0.1:1/state?connect_timeout=2"})
	err := cmd.Execute()
	if err == nil {
		t.Fatal("token list against nothing succeeded")
	}
	if strings.Contains(err.Error()+out.String(), "S3cretPassw0rd") {
		t.Errorf("the password is printed: %v %s", err, out.String())
	}
}

// With no database named, the token commands use the SQLite file serve made on its first start.
func TestWithNoDatabaseNamedTheTokensAreKeptInServesSQLiteFile(t *testing.T) {
	tests := []struct {
		name    string
		sandbox bool
		file    string
	}{
		{"in the current folder", false, "clusterplane-serve.db"},
		{"in the sandbox's folder inside the sandbox", true, filepath.Join("sandbox", "clusterplane-serve.db")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			t.Setenv(servecmd.DatabaseEnv, "")
			t.Setenv(cloudfacts.SandboxEnv, "")
			if tt.sandbox {
				t.Setenv(cloudfacts.SandboxEnv, filepath.Join(dir, "sandbox"))
				if err := os.Mkdir(filepath.Join(dir, "sandbox"), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			// serve's first start made the file
			made, err := store.Open(context.Background(), store.SQLitePrefix+filepath.Join(dir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			made.Close()
			run := func(args ...string) string {
				t.Helper()
				cmd := servecmd.New(registry.Kinds())
				var out bytes.Buffer
				cmd.SetOut(&out)
				cmd.SetErr(&out)
				cmd.SetArgs(args)
				if err := cmd.Execute(); err != nil {
					t.Fatalf("serve %s: %v", strings.Join(args, " "), err)
				}
				return out.String()
			}
			token := run("token", "create", "--name", "portal", "--role", "editor")
			if !strings.HasPrefix(token, "cpt_") {
				t.Fatalf("token create printed %q", token)
			}
			if listed := run("token", "list"); !strings.Contains(listed, "portal") || !strings.Contains(listed, "editor") {
				t.Errorf("token list does not show the token made: %s", listed)
			}
			if probe := run("token", "create", "--name", "probe", "--role", "controller", "--controller", "gpu-probe"); !strings.HasPrefix(probe, "cpt_") {
				t.Fatalf("token create --role controller printed %q", probe)
			}
			if listed := run("token", "list"); !strings.Contains(listed, "CONTROLLER") || !strings.Contains(listed, "gpu-probe") {
				t.Errorf("token list does not show the controller token's controller: %s", listed)
			}
			st, err := store.Open(context.Background(), store.SQLitePrefix+filepath.Join(dir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if tokens, err := st.Tokens().List(context.Background()); err != nil || len(tokens) != 2 || tokens[0].Name != "portal" || tokens[1].Controller != "gpu-probe" {
				t.Errorf("the tokens in %s: %v %v, want the two made", tt.file, tokens, err)
			}
		})
	}
}
