package autostack

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAStateWrittenSinceTheNewestRecordIsToldFromOneThatRecordCopied(t *testing.T) {
	imported := strings.Replace(checkpoint, `"abc"`, `"edited"`, 1)
	const older, newer = ".pulumi/history/p/s/s-1764064800000000000", ".pulumi/history/p/s/s-1764068400000000000"
	tests := []struct {
		name  string
		files map[string]string // path under the backend's root: content ("gz:" gzips it)
		want  bool
	}{
		{"the state the newest record copied is no write since", map[string]string{
			".pulumi/stacks/p/s.json": checkpoint,
			older + ".history.json":   updated, older + ".checkpoint.json": imported,
			newer + ".history.json": updated, newer + ".checkpoint.json": checkpoint,
		}, false},
		{"a state imported after the newest record is a write since, whatever an older record copied", map[string]string{
			".pulumi/stacks/p/s.json": imported,
			older + ".history.json":   updated, older + ".checkpoint.json": imported,
			newer + ".history.json": updated, newer + ".checkpoint.json": checkpoint,
		}, true},
		{"a gzipped record's copy is read unzipped", map[string]string{
			".pulumi/stacks/p/s.json.gz": "gz:" + checkpoint,
			newer + ".history.json.gz":   "gz:" + updated, newer + ".checkpoint.json.gz": "gz:" + checkpoint,
		}, false},
		{"a newest record without its copy vouches for nothing", map[string]string{
			".pulumi/stacks/p/s.json": checkpoint,
			older + ".history.json":   updated, older + ".checkpoint.json": checkpoint,
			newer + ".history.json": updated,
		}, true},
		{"a stack without records vouches for nothing", map[string]string{".pulumi/stacks/p/s.json": checkpoint}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			tt.files[".pulumi/meta.yaml"] = meta
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
			rec, err := (&Backend{url: "file://" + root}).Records(context.Background(), "p", "s")
			if err != nil {
				t.Fatal(err)
			}
			if rec.WrittenSinceRecord != tt.want {
				t.Errorf("written since the newest record: %v, want %v", rec.WrittenSinceRecord, tt.want)
			}
		})
	}
}
