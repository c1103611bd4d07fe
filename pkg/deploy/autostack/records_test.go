package autostack

import (
	"bytes"
	"compress/gzip"
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/deploy/fielddrift"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// A file backend's records as the Pulumi CLI writes them: its layout's version, a checkpoint
// (version 3, the state under "latest") and one history record per finished operation.
const (
	meta       = "version: 1\n"
	checkpoint = `{"version":3,"checkpoint":{"stack":"organization/p/s","latest":{"manifest":{"time":"2026-11-25T10:00:00Z"},"resources":[{"urn":"urn:pulumi:s::p::pulumi:pulumi:Stack::p-s","type":"pulumi:pulumi:Stack","outputs":{"clusterplane_generation":"abc"}}]}}}`
	updated    = `{"kind":"update","startTime":1764064790,"result":"succeeded","endTime":1764064800}`
	failed     = `{"kind":"update","startTime":1764068390,"result":"failed","endTime":1764068400}`
	refreshed  = `{"kind":"refresh","startTime":1764072000,"result":"succeeded","endTime":1764072001}`
	// An adoption's update, whose message the Automation API gave the CLI quoted (--message=%q).
	adopted = `{"kind":"update","startTime":1764064790,"result":"succeeded","endTime":1764064800,` +
		`"message":"\"clusterplane adopt: in-place changes left for the next up\"",` +
		`"environment":{"git.author":"Ada","git.author.email":"ada@example.com"}}`
)

func TestRecordsAreReadFromAFileBackendAsTheCLIWouldSayThem(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // path under the backend's root: content (encoded: "gz:", "zst:")
		url   string            // "" for the folder's file:// URL
		last  *stackstate.Update
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
		}, "", &stackstate.Update{Operation: "update", Result: "failed", Ended: "2025-11-25T11:00:00.000Z"}, "refresh", nil},
		{"gzipped state and history", map[string]string{
			".pulumi/meta.yaml":          meta,
			".pulumi/stacks/p/s.json.gz": "gz:" + checkpoint,
			".pulumi/history/p/s/s-1764064800000000000.history.json.gz": "gz:" + updated,
		}, "", &stackstate.Update{Operation: "update", Result: "succeeded", Ended: "2025-11-25T10:00:00.000Z"}, "update", nil},
		{"zstd-compressed state and history", map[string]string{
			".pulumi/meta.yaml":           meta,
			".pulumi/stacks/p/s.json.zst": "zst:" + checkpoint,
			".pulumi/history/p/s/s-1764064800000000000.history.json.zst": "zst:" + updated,
			".pulumi/history/p/s/s-1764068400000000000.history.json.zst": "zst:" + refreshed,
		}, "", &stackstate.Update{Operation: "update", Result: "succeeded", Ended: "2025-11-25T10:00:00.000Z"}, "refresh", nil},
		{"history in every form, the newest first whatever its form", map[string]string{
			".pulumi/meta.yaml":       meta,
			".pulumi/stacks/p/s.json": checkpoint,
			".pulumi/history/p/s/s-1764064800000000000.history.json.zst": "zst:" + updated,
			".pulumi/history/p/s/s-1764068400000000000.history.json.gz":  "gz:" + failed,
			".pulumi/history/p/s/s-1764072001000000000.history.json":     refreshed,
		}, "", &stackstate.Update{Operation: "update", Result: "failed", Ended: "2025-11-25T11:00:00.000Z"}, "refresh", nil},
		// The CLI tells a record's compression by its first bytes, not its name.
		{"a compressed record under a plain name", map[string]string{
			".pulumi/meta.yaml":       meta,
			".pulumi/stacks/p/s.json": "zst:" + checkpoint,
			".pulumi/history/p/s/s-1764064800000000000.history.json": "gz:" + updated,
		}, "", &stackstate.Update{Operation: "update", Result: "succeeded", Ended: "2025-11-25T10:00:00.000Z"}, "update", nil},
		{"the backups and metadata files the CLI keeps beside the records", map[string]string{
			".pulumi/meta.yaml":               meta,
			".pulumi/stacks/p/s.json.zst":     "zst:" + checkpoint,
			".pulumi/stacks/p/s.json.bak":     checkpoint,
			".pulumi/stacks/p/s.json.zst.bak": "zst:" + checkpoint,
			".pulumi/stacks/p/s.json.x.json":  checkpoint, // stack s.json.x's
			// The file store's metadata beside each blob.
			".pulumi/stacks/p/s.json.zst.attrs":                                `{"user.metadata":null}`,
			".pulumi/history/p/s/s-1764064800000000000.history.json.zst":       "zst:" + updated,
			".pulumi/history/p/s/s-1764064800000000000.history.json.zst.attrs": `{"user.metadata":null}`,
		}, "", &stackstate.Update{Operation: "update", Result: "succeeded", Ended: "2025-11-25T10:00:00.000Z"}, "update", nil},
		{"a state in a form clusterplane does not read", map[string]string{
			".pulumi/meta.yaml":          meta,
			".pulumi/stacks/p/s.json.br": "brotli",
		}, "", nil, "", stackstate.ErrRecordsUnread},
		{"a state kept in two forms", map[string]string{
			".pulumi/meta.yaml":           meta,
			".pulumi/stacks/p/s.json":     checkpoint,
			".pulumi/stacks/p/s.json.zst": "zst:" + checkpoint,
		}, "", nil, "", stackstate.ErrRecordsUnread},
		{"a history record in a form clusterplane does not read", map[string]string{
			".pulumi/meta.yaml":       meta,
			".pulumi/stacks/p/s.json": checkpoint,
			".pulumi/history/p/s/s-1764064800000000000.history.json":    updated,
			".pulumi/history/p/s/s-1764068400000000000.history.json.br": "brotli",
		}, "", nil, "", stackstate.ErrRecordsUnread},
		{"a zstd state of the layout before projects", map[string]string{".pulumi/stacks/s.json.zst": "zst:" + checkpoint}, "", nil, "",
			stackstate.ErrRecordsUnread},
		// Read as `pulumi stack history` reads it (history.go): the fleet scan matches the message.
		{"an adoption's message as it was given, and who ran it", map[string]string{
			".pulumi/meta.yaml":       meta,
			".pulumi/stacks/p/s.json": checkpoint,
			".pulumi/history/p/s/s-1764064800000000000.history.json": adopted,
		}, "", &stackstate.Update{Operation: "update", Result: "succeeded", Ended: "2025-11-25T10:00:00.000Z",
			Message: fielddrift.AdoptedWithChangesLeft, By: "Ada <ada@example.com>"}, "update", nil},
		{"a stack with no history yet", map[string]string{
			".pulumi/meta.yaml": meta, ".pulumi/stacks/p/s.json": checkpoint,
		}, "", nil, "", nil},
		{"a stack that does not exist", map[string]string{".pulumi/meta.yaml": meta}, "", nil, "", stackstate.ErrNotDeployed},
		{"a backend nothing was deployed to yet", map[string]string{}, "", nil, "", stackstate.ErrNotDeployed},
		// The CLI's way names the backup that restores it.
		{"a state cut short", map[string]string{".pulumi/meta.yaml": meta, ".pulumi/stacks/p/s.json": checkpoint[:40]}, "", nil, "", stackstate.ErrRecordsUnread},
		{"the layout before projects", map[string]string{".pulumi/stacks/s.json": checkpoint}, "", nil, "", stackstate.ErrRecordsUnread},
		{"a backend that is no folder", nil, "s3://bucket", nil, "", stackstate.ErrRecordsUnread},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, text := range tt.files {
				writeBlob(t, filepath.Join(root, filepath.FromSlash(name)), text)
			}
			url := tt.url
			if url == "" {
				url = "file://" + root
			}
			if tt.err == nil {
				last, err := (&Backend{url: url}).LastUpdate(context.Background(), "p", "s")
				if err != nil || !reflect.DeepEqual(last, tt.last) {
					t.Errorf("LastUpdate: %+v, %v; want %+v as Records reads it", last, err, tt.last)
				}
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

func TestTheLastUpdateIsReadFromTheHistoryLeavingTheStateUnread(t *testing.T) {
	tests := []struct {
		name  string
		state string // the stack's checkpoint
	}{
		{"a state that reads", checkpoint},
		{"a state cut short, which Records cannot read", checkpoint[:40]},
		{"a state in no form at all", "not json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, text := range map[string]string{".pulumi/meta.yaml": meta, ".pulumi/stacks/p/s.json": tt.state,
				".pulumi/history/p/s/s-1764064800000000000.history.json": updated} {
				writeBlob(t, filepath.Join(root, filepath.FromSlash(name)), text)
			}
			last, err := (&Backend{url: "file://" + root}).LastUpdate(context.Background(), "p", "s")
			want := &stackstate.Update{Operation: "update", Result: "succeeded", Ended: "2025-11-25T10:00:00.000Z"}
			if err != nil || !reflect.DeepEqual(last, want) {
				t.Errorf("LastUpdate: %+v, %v; want %+v", last, err, want)
			}
		})
	}
}

// encoded is text as the CLI writes it: gzipped after "gz:", zstd-compressed after "zst:" (as
// sdk go/common/encoding does, v3.259.0), else as it is.
func encoded(t *testing.T, text string) []byte {
	t.Helper()
	if rest, ok := strings.CutPrefix(text, "gz:"); ok {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		_, _ = w.Write([]byte(rest))
		_ = w.Close()
		return b.Bytes()
	}
	if rest, ok := strings.CutPrefix(text, "zst:"); ok {
		w, err := zstd.NewWriter(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		return w.EncodeAll([]byte(rest), nil)
	}
	return []byte(text)
}
