package servecmd_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/serve/servecmd"
)

func TestServeSaysWhatIsMissingBeforeItConnectsToAnything(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no database", nil, "serve needs a PostgreSQL database: --database-url"},
		{"a proxy that is no address", []string{"--database-url", "postgres://x", "--trusted-proxy", "proxy.example"}, `--trusted-proxy "proxy.example": not an address or a CIDR prefix`},
		{"an unknown proxy role", []string{"--database-url", "postgres://x", "--proxy-role", "root"}, "--proxy-role"},
		{"a rescue before the stack's timeout", []string{"--database-url", "postgres://x", "--stack-timeout", "1h", "--rescue-after", "30m"}, "must be longer than --stack-timeout"},
		{"a token without a role", []string{"token", "create", "--database-url", "postgres://x", "--name", "ci"}, "--role"},
		{"a token without a name", []string{"token", "create", "--database-url", "postgres://x", "--role", "editor"}, "--name"},
		{"a token list without a database", []string{"token", "list"}, "--database-url"},
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
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error saying %q", err, tt.want)
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
