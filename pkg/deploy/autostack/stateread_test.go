package autostack

import (
	"context"
	"encoding/base64"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// An up reads its stack's state several times with nothing written between (before its checks,
// before a refresh, after a preview): the checkpoint is parsed once, on the file and the
// PostgreSQL backends alike, and read anew once it changed.
func TestAStacksStateIsParsedOnceWhileItsStoredBytesStayTheSame(t *testing.T) {
	tests := stateBackends()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, put := tt.backend(t)
			put(".pulumi/meta.yaml", meta)
			put(".pulumi/stacks/p/s.json", checkpoint)
			s := &stackOf{backend: b, project: "p", stack: "s"}
			ctx := context.Background()
			read := func() stackstate.State {
				t.Helper()
				st, err := s.State(ctx)
				if err != nil || len(st.Deployment.Resources) != 1 {
					t.Fatalf("State = %+v, %v; want the checkpoint's one resource", st.Deployment, err)
				}
				return st
			}
			first, second := read(), read()
			if &first.Deployment.Resources[0] != &second.Deployment.Resources[0] {
				t.Error("the state was parsed again though its stored bytes are the same")
			}
			put(".pulumi/stacks/p/s.json", strings.Replace(checkpoint, `"abc"`, `"def"`, 1))
			third := read()
			if got := stackstate.StringOutput(third.Outputs(), "clusterplane_generation"); got != "def" {
				t.Errorf("after the checkpoint changed, the state read says generation %q, want def", got)
			}
			if got := stackstate.StringOutput(first.Outputs(), "clusterplane_generation"); got != "abc" {
				t.Errorf("the state read first now says generation %q, want abc: a later read changed it", got)
			}
		})
	}
}

// stateBackend is a backend holding meta.yaml, and put writes the blob at key into it.
type stateBackend struct {
	name    string
	backend func(t *testing.T) (b *Backend, put func(key, text string))
}

// stateBackends are the backends whose stored states clusterplane reads itself: a local folder
// and a real PostgreSQL.
func stateBackends() []stateBackend {
	return []stateBackend{
		{name: "a file backend", backend: func(t *testing.T) (*Backend, func(key, text string)) {
			root := t.TempDir()
			return &Backend{url: "file://" + root}, func(key, text string) {
				writeBlob(t, filepath.Join(root, filepath.FromSlash(key)), text)
			}
		}},
		{name: "a PostgreSQL backend", backend: func(t *testing.T) (*Backend, func(key, text string)) {
			url := pgtest.Start(t).Database("parsedonce")
			b := &Backend{url: url}
			if err := b.prepareTable(context.Background()); err != nil {
				t.Fatal(err)
			}
			db, _, err := openPostgres(url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = db.Close() })
			return b, func(key, text string) {
				// A row as the CLI writes it: the blob base64 in a JSON object, under the
				// database's name.
				row := `{"data": "` + base64.StdEncoding.EncodeToString([]byte(text)) + `"}`
				if _, err := db.Exec(`INSERT INTO pulumi_state (key, data) VALUES ($1, $2)
					ON CONFLICT (key) DO UPDATE SET data = EXCLUDED.data`, "parsedonce/"+key, row); err != nil {
					t.Fatal(err)
				}
			}
		}},
	}
}

// The fleet scan parses the state of each stack it reads, and keeps the parse of those it leaves
// to run (Records.Keep): the stack's first read, at its opening, parses nothing while the stored
// bytes are the ones the scan read, and reads anew once they changed. A kept parse is taken by
// one opening.
// Promise: scan-keeps-parsed-state
func TestAStateTheFleetScanKeptIsNotParsedAgainByTheStacksFirstRead(t *testing.T) {
	rows := []struct {
		name    string
		keep    bool
		changed bool
		// opened is how many times the stack is opened before the read looked at.
		opened int
		// same: the read returns the scan's parse itself; generation is what the read says.
		same       bool
		generation string
	}{
		{name: "a kept state is the first read's", keep: true, opened: 1, same: true, generation: "abc"},
		{name: "a state not kept is parsed at the first read", keep: false, opened: 1, same: false, generation: "abc"},
		{name: "a kept state whose stored bytes changed is read anew", keep: true, changed: true, opened: 1, same: false, generation: "def"},
		{name: "a kept state is taken by one opening only", keep: true, opened: 2, same: false, generation: "abc"},
	}
	for _, tt := range stateBackends() {
		t.Run(tt.name, func(t *testing.T) {
			b, put := tt.backend(t)
			put(".pulumi/meta.yaml", meta)
			ctx := context.Background()
			for i, row := range rows {
				t.Run(row.name, func(t *testing.T) {
					stack := fmt.Sprintf("s%d", i)
					put(".pulumi/stacks/p/"+stack+".json", checkpoint)
					rec, err := b.Records(ctx, "p", stack)
					if err != nil || rec.Deployment == nil || rec.Keep == nil || len(rec.Deployment.Resources) != 1 {
						t.Fatalf("Records = %+v, %v; want the checkpoint parsed, to keep", rec, err)
					}
					if row.keep {
						rec.Keep()
					}
					if row.changed {
						put(".pulumi/stacks/p/"+stack+".json", strings.Replace(checkpoint, `"abc"`, `"def"`, 1))
					}
					var s *stackOf
					for range row.opened {
						s = b.stackOf("p", stack, nil)
					}
					st, err := s.State(ctx)
					if err != nil || len(st.Deployment.Resources) != 1 {
						t.Fatalf("State = %+v, %v; want the checkpoint's one resource", st.Deployment, err)
					}
					if same := &st.Deployment.Resources[0] == &rec.Deployment.Resources[0]; same != row.same {
						t.Errorf("the read is the scan's parse: %v, want %v", same, row.same)
					}
					if got := stackstate.StringOutput(st.Outputs(), "clusterplane_generation"); got != row.generation {
						t.Errorf("the read says generation %q, want %q", got, row.generation)
					}
				})
			}
		})
	}
}
