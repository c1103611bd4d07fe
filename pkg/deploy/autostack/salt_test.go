package autostack

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

func TestTheSecretsOfAFileBackendsStackAreReadFromItsCheckpoint(t *testing.T) {
	const passphrase = `{"checkpoint": {"latest": {"secrets_providers": {"type": "passphrase", "state": {"salt": "v1:c2FsdA==:v1:x:y"}}}}}`
	gz := func(s string) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		_, _ = w.Write([]byte(s))
		_ = w.Close()
		return buf.Bytes()
	}
	tests := []struct {
		name string
		// file is the checkpoint's name under .pulumi/stacks/p, "" for none.
		file     string
		data     []byte
		url      string
		provider string
		salt     string
		fails    bool
	}{
		{"a passphrase stack", "s.json", []byte(passphrase), "", "passphrase", "v1:c2FsdA==:v1:x:y", false},
		{"a gzipped checkpoint", "s.json.gz", gz(passphrase), "", "passphrase", "v1:c2FsdA==:v1:x:y", false},
		{"a zstd-compressed checkpoint", "s.json.zst", encoded(t, "zst:"+passphrase), "", "passphrase", "v1:c2FsdA==:v1:x:y", false},
		{"a checkpoint in a form not read here", "s.json.br", []byte("brotli"), "", "", "", true},
		{"a stack under a KMS key", "s.json", []byte(`{"checkpoint": {"latest": {"secrets_providers": {"type": "cloud", "state": {"url": "awskms://k"}}}}}`),
			"", "cloud", "", false},
		{"a stack never deployed", "s.json", []byte(`{"checkpoint": {"stack": "organization/p/s"}}`), "", "", "", false},
		{"no such stack", "", nil, "", "", "", false},
		{"another backend", "s.json", []byte(passphrase), "postgres://db/state", "", "", false},
		{"a checkpoint cut short", "s.json", []byte(passphrase[:40]), "", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if tt.file != "" {
				dir := filepath.Join(root, ".pulumi", "stacks", "p")
				if err := os.MkdirAll(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, tt.file), tt.data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			b := &Backend{url: "file://" + root}
			if tt.url != "" {
				b.url = tt.url
			}
			provider, salt, err := b.secretsOf("p", "s")
			if provider != tt.provider || salt != tt.salt || (err != nil) != tt.fails {
				t.Errorf("secretsOf = %q, %q, %v; want %q, %q, failing %t", provider, salt, err, tt.provider, tt.salt, tt.fails)
			}
		})
	}
}
