package autostack

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/deploy"
)

// A file backend's records as the Pulumi CLI writes them: its layout's version, a checkpoint
// (version 3, the state under "latest") and one history record per finished operation.
const (
	meta       = "version: 1\n"
	checkpoint = `{"version":3,"checkpoint":{"stack":"organization/p/s","latest":{"manifest":{"time":"2026-11-25T10:00:00Z"},"resources":[{"urn":"urn:pulumi:s::p::pulumi:pulumi:Stack::p-s","type":"pulumi:pulumi:Stack","outputs":{"clusterplane_generation":"abc"}}]}}}`
	updated    = `{"kind":"update","startTime":1764064790,"result":"succeeded","endTime":1764064800}`
	failed     = `{"kind":"update","startTime":1764068390,"result":"failed","endTime":1764068400}`
	refreshed  = `{"kind":"refresh","startTime":1764072000,"result":"succeeded","endTime":1764072001}`
)

func TestRecordsAreReadFromAFileBackendAsTheCLIWouldSayThem(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // path under the backend's root: content ("gz:" gzips it)
		url   string            // "" for the folder's file:// URL
		last  *deploy.Update
		// newest is the kind of the newest history record of any kind.
		newest string
		err    error
	}{
		{"the last update, not the refresh after it", map[string]string{
			".pulumi/meta.yaml":       meta,
			".pulumi/stacks/p/s.json": checkpoint,
			".pulumi/history/p/s/s-1764064800000000000.history.json":    updated,
			".pulumi/history/p/s/s-1764068400000000000.history.json":    failed,
			".pulumi/history/p/s/s-1764068400000000000.checkpoint.json": checkpoint,
			".pulumi/history/p/s/s-1764072001000000000.history.json":    refreshed,
		}, "", &deploy.Update{Operation: "update", Result: "failed", Ended: "2025-11-25T11:00:00.000Z"}, "refresh", nil},
		{"gzipped state and history", map[string]string{
			".pulumi/meta.yaml":          meta,
			".pulumi/stacks/p/s.json.gz": "gz:" + checkpoint,
			".pulumi/history/p/s/s-1764064800000000000.history.json.gz": "gz:" + updated,
		}, "", &deploy.Update{Operation: "update", Result: "succeeded", Ended: "2025-11-25T10:00:00.000Z"}, "update", nil},
		{"a stack with no history yet", map[string]string{
			".pulumi/meta.yaml": meta, ".pulumi/stacks/p/s.json": checkpoint,
		}, "", nil, "", nil},
		{"a stack that does not exist", map[string]string{".pulumi/meta.yaml": meta}, "", nil, "", deploy.ErrNotDeployed},
		{"a backend nothing was deployed to yet", map[string]string{}, "", nil, "", deploy.ErrNotDeployed},
		// The CLI's way names the backup that restores it.
		{"a state cut short", map[string]string{".pulumi/meta.yaml": meta, ".pulumi/stacks/p/s.json": checkpoint[:40]}, "", nil, "", deploy.ErrRecordsUnread},
		{"the layout before projects", map[string]string{".pulumi/stacks/s.json": checkpoint}, "", nil, "", deploy.ErrRecordsUnread},
		{"a backend that is no folder", nil, "s3://bucket", nil, "", deploy.ErrRecordsUnread},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, text := range tt.files {
				data := []byte(text)
				if rest, ok := bytes.CutPrefix(data, []byte("gz:")); ok {
					var b bytes.Buffer
					w := gzip.NewWriter(&b)
					_, _ = w.Write(rest)
					_ = w.Close()
					data = b.Bytes()
				}
				path := filepath.Join(root, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			url := tt.url
			if url == "" {
				url = "file://" + root
			}
			rec, err := (&Backend{url: url}).Records(context.Background(), "p", "s")
			if !errors.Is(err, tt.err) || tt.err == nil && err != nil {
				t.Fatalf("records: %v, want %v", err, tt.err)
			}
			if err != nil {
				return
			}
			if !reflect.DeepEqual(rec.Last, tt.last) || rec.Newest != tt.newest {
				t.Errorf("last update %+v, newest %q; want %+v, %q", rec.Last, rec.Newest, tt.last, tt.newest)
			}
			if rec.State.Version != 3 || !bytes.Contains(rec.State.Deployment, []byte(`"clusterplane_generation":"abc"`)) {
				t.Errorf("state %d %s, want the checkpoint's latest deployment", rec.State.Version, rec.State.Deployment)
			}
		})
	}
}
