package servecmd

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/serve"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

func TestSandboxedServeStartsShareOneAdminToken(t *testing.T) {
	tests := []struct {
		name string
		// before is what the database and the sandbox's folder hold before the two starts.
		before func(t *testing.T, st *store.Store, dir string)
	}{
		{name: "two starts in a new sandbox leave one admin token", before: func(*testing.T, *store.Store, string) {}},
		{name: "the admin tokens earlier builds minted at every start are revoked", before: func(t *testing.T, st *store.Store, _ string) {
			for _, name := range []string{"sandbox-1764160000", "sandbox-1764160100"} {
				if _, err := serve.CreateToken(context.Background(), st, name, auth.Admin, ""); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{name: "a kept token the database no longer knows is replaced", before: func(t *testing.T, _ *store.Store, dir string) {
			gone := "cpt_0123456789abcdef_" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
			if err := os.WriteFile(filepath.Join(dir, sandboxTokenFile), []byte(gone), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			st, err := store.Open(ctx, store.SQLitePrefix+filepath.Join(dir, "clusterplane-serve.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			tt.before(t, st, dir)
			first, err := sandboxToken(ctx, st, dir)
			if err != nil {
				t.Fatal(err)
			}
			second, err := sandboxToken(ctx, st, dir)
			if err != nil {
				t.Fatal(err)
			}
			if first != second {
				t.Errorf("the second start handed out another token than the first")
			}
			if ok, err := opensAsAdmin(ctx, st, second); err != nil || !ok {
				t.Errorf("the sandbox's token does not open serve as admin: %v", err)
			}
			tokens, err := st.Tokens(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var live []string
			for _, tok := range tokens {
				if tok.RevokedAt == nil && tok.Role == string(auth.Admin) {
					live = append(live, tok.Name)
				}
			}
			if len(live) != 1 || live[0] != sandboxTokenName {
				t.Errorf("admin tokens that open serve after two starts: %v, want the sandbox's one", live)
			}
			if info, err := os.Lstat(filepath.Join(dir, sandboxTokenFile)); err != nil || info.Mode().Perm() != 0o600 {
				t.Errorf("the kept token: %v %v, want a file only this user reads", info, err)
			}
		})
	}
}
