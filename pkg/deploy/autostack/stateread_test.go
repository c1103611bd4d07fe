package autostack

import (
	"context"
	"encoding/base64"
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
	tests := []struct {
		name string
		// backend is a backend holding meta.yaml, and put writes the blob at key into it.
		backend func(t *testing.T) (b *Backend, put func(key, text string))
	}{
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
