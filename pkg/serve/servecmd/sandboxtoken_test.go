package servecmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
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
				if _, err := serve.CreateToken(context.Background(), st.Tokens(), name, auth.Admin, ""); err != nil {
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
			if ok, err := opensAsAdmin(ctx, st.Tokens(), second); err != nil || !ok {
				t.Errorf("the sandbox's token does not open serve as admin: %v", err)
			}
			if live := liveAdminTokens(t, st); len(live) != 1 || live[0] != sandboxTokenName {
				t.Errorf("admin tokens that open serve after two starts: %v, want the sandbox's one", live)
			}
			if info, err := os.Lstat(filepath.Join(dir, sandboxTokenFile)); err != nil || info.Mode().Perm() != 0o600 {
				t.Errorf("the kept token: %v %v, want a file only this user reads", info, err)
			}
		})
	}
}

// Replicas started together in one sandbox on a fresh database: each must hand out the one token
// the sandbox's folder keeps, rather than each make its own (a fault trial: two admin tokens
// named sandbox, one written only in a replica's log).
func TestSandboxedServeStartsAtOnceMakeOneAdminToken(t *testing.T) {
	const starts, rounds = 4, 3
	databases := []struct {
		name string
		url  func(t *testing.T, round int) string
	}{
		{"on SQLite", func(t *testing.T, _ int) string {
			return store.SQLitePrefix + filepath.Join(t.TempDir(), "clusterplane-serve.db")
		}},
		{"on PostgreSQL", func() func(t *testing.T, round int) string {
			var server *pgtest.Server
			return func(t *testing.T, round int) string {
				if server == nil {
					server = pgtest.Start(t)
				}
				return server.Database(fmt.Sprintf("sandbox%d", round))
			}
		}()},
	}
	for _, db := range databases {
		t.Run(db.name+": every start hands out the one token kept", func(t *testing.T) {
			for round := range rounds {
				ctx := context.Background()
				dir, url := t.TempDir(), db.url(t, round)
				stores := make([]*store.Store, starts)
				for i := range stores {
					st, err := store.Open(ctx, url)
					if err != nil {
						t.Fatal(err)
					}
					defer st.Close()
					stores[i] = st
				}
				tokens, errs := make([]string, starts), make([]error, starts)
				release := make(chan struct{})
				var wg sync.WaitGroup
				for i, st := range stores {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-release
						tokens[i], errs[i] = sandboxToken(ctx, st, dir)
					}()
				}
				close(release)
				wg.Wait()
				for i := range starts {
					if errs[i] != nil {
						t.Fatalf("start %d: %v", i, errs[i])
					}
					if tokens[i] != tokens[0] {
						t.Fatalf("round %d: start %d handed out another token than start 0", round, i)
					}
				}
				kept, err := os.ReadFile(filepath.Join(dir, sandboxTokenFile))
				if err != nil || strings.TrimSpace(string(kept)) != tokens[0] {
					t.Fatalf("round %d: the folder keeps another token than the starts handed out (%v)", round, err)
				}
				if live := liveAdminTokens(t, stores[0]); len(live) != 1 || live[0] != sandboxTokenName {
					t.Fatalf("round %d: admin tokens that open serve: %v, want the sandbox's one", round, live)
				}
			}
		})
	}
}

// liveAdminTokens are the names of the admin tokens st knows that are not revoked.
func liveAdminTokens(t *testing.T, st *store.Store) []string {
	t.Helper()
	tokens, err := st.Tokens().List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var live []string
	for _, tok := range tokens {
		if tok.RevokedAt == nil && tok.Role == string(auth.Admin) {
			live = append(live, tok.Name)
		}
	}
	return live
}
