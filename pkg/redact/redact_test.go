package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func TestTheCredentialsOfURLsAndPasswordSettingsAreRemoved(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"a postgres URL, as the engine quotes it",
			`error: unable to open state database "postgres://clusterplane:S3cretPassw0rd@127.0.0.1:5432/state?sslmode=disable": failed to ping PostgreSQL`,
			`error: unable to open state database "postgres://clusterplane:[redacted]@127.0.0.1:5432/state?sslmode=disable": failed to ping PostgreSQL`},
		{"a URL at the end of the text", "backend postgresql://u:p4ss@db", "backend postgresql://u:[redacted]@db"},
		{"a password holding an unencoded @", "postgres://u:p@ss@db/x", "postgres://u:[redacted]@db/x"},
		{"an encoded password", "postgres://u:p%40ss%2Fw@db/x", "postgres://u:[redacted]@db/x"},
		{"an empty password", "postgres://u:@db/x", "postgres://u:[redacted]@db/x"},
		{"two URLs on a line", "s3://a:one1@h1/x and https://b:two2@h2/y", "s3://a:[redacted]@h1/x and https://b:[redacted]@h2/y"},
		{"a user without a password is kept", "postgres://clusterplane@127.0.0.1:5432/state", "postgres://clusterplane@127.0.0.1:5432/state"},
		{"a host and port are not a password", "http://127.0.0.1:41321/v2/kubernetes/clusters: 422", "http://127.0.0.1:41321/v2/kubernetes/clusters: 422"},
		{"a port before a mail address", "see https://example.com:443 or ops@example.com", "see https://example.com:443 or ops@example.com"},
		{"libpq key/value", "host=db user=u password=S3cret dbname=state sslmode=require", "host=db user=u password=[redacted] dbname=state sslmode=require"},
		{"libpq quoted value", `host=db password='a secret with spaces' dbname=x`, `host=db password=[redacted] dbname=x`},
		{"libpq quoted value with an escaped quote", `host=db password='a \' secret' dbname=x`, `host=db password=[redacted] dbname=x`},
		{"a query parameter", "postgres://db/x?user=u&password=S3cret&sslmode=disable", "postgres://db/x?user=u&password=[redacted]&sslmode=disable"},
		{"sslpassword and spaces around =", "sslpassword = S3cret", "sslpassword = [redacted]"},
		{"an environment assignment", "PULUMI_CONFIG_PASSPHRASE=hunter22 pulumi up", "PULUMI_CONFIG_PASSPHRASE=[redacted] pulumi up"},
		{"the word password without a value", "the password is wrong", "the password is wrong"},
		{"text without secrets", "update failed: 1 error occurred", "update failed: 1 error occurred"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range []*Redactor{nil, New()} {
				if got := r.String(tt.text); got != tt.want {
					t.Errorf("String(%q)\n = %q\nwant %q", tt.text, got, tt.want)
				}
			}
		})
	}
}

func TestRegisteredSecretsAreRemovedInEveryFormTheyArePrintedIn(t *testing.T) {
	r := New("dop_v1_abc123", "p@ss/w0rd", "a\"quoted\\one", "abc", "")
	tests := []struct{ name, text, want string }{
		{"as given", "token dop_v1_abc123 refused", "token [redacted] refused"},
		{"URL-encoded", "password p%40ss%2Fw0rd", "password [redacted]"},
		{"path-encoded", "password p@ss%2Fw0rd", "password [redacted]"},
		{"escaped in JSON", `{"error": "a\"quoted\\one"}`, `{"error": "[redacted]"}`},
		{"raw beside JSON", `a"quoted\one`, `[redacted]`},
		{"several times", "dop_v1_abc123dop_v1_abc123", "[redacted][redacted]"},
		{"too short to register", "abc is kept", "abc is kept"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.String(tt.text); got != tt.want {
				t.Errorf("String(%q)\n = %q\nwant %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestALongerSecretIsRemovedWholeNotAroundAShorterOne(t *testing.T) {
	r := New("secret", "topsecret-value")
	if got := r.String("x topsecret-value y secret"); got != "x [redacted] y [redacted]" {
		t.Errorf("got %q", got)
	}
}

func TestTheRunsSecretsAreReadFromTheEnvironment(t *testing.T) {
	env := map[string]string{
		"DIGITALOCEAN_TOKEN":            "dop_v1_0123456789",
		"CIVO_TOKEN":                    "civoTOKEN42",
		"PULUMI_CONFIG_PASSPHRASE":      "correct horse",
		"PULUMI_CONFIG_PASSPHRASE_FILE": "/run/passphrase",
		"PULUMI_BACKEND_URL":            "postgres://clusterplane:S3cret%2Fpass@db:5432/state",
	}
	files := map[string]string{"/run/passphrase": "battery staple\n"}
	r := fromLookup(func(k string) string { return env[k] }, func(p string) ([]byte, error) {
		if data, ok := files[p]; ok {
			return []byte(data), nil
		}
		return nil, os.ErrNotExist
	})
	for _, secret := range []string{"dop_v1_0123456789", "civoTOKEN42", "correct horse", "correct+horse", "correct%20horse",
		"battery staple", "S3cret%2Fpass", "S3cret/pass"} {
		if got := r.String("say " + secret + " once"); got != "say [redacted] once" {
			t.Errorf("%q: got %q", secret, got)
		}
	}
	// A backend URL without a password registers nothing, and an empty environment nothing.
	r = fromLookup(func(k string) string {
		return map[string]string{"PULUMI_BACKEND_URL": "file:///home/u/state"}[k]
	}, os.ReadFile)
	if got := r.String("file:///home/u/state"); got != "file:///home/u/state" {
		t.Errorf("got %q", got)
	}
}

func TestPasswordReadsTheURLsUserInformation(t *testing.T) {
	tests := []struct{ url, want string }{
		{"postgres://u:S3cret@db/x", "S3cret"},
		{"postgres://u:p@ss@db/x", "p@ss"},
		{"postgres://u:a/b#c@db/x", "a/b#c"},
		{"postgres://u@db/x", ""},
		{"file:///state", ""},
		{"", ""},
		{"not a url", ""},
	}
	for _, tt := range tests {
		if got := Password(tt.url); got != tt.want {
			t.Errorf("Password(%q) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

func TestAnErrorKeepsItsMessageWithoutTheSecrets(t *testing.T) {
	plain := errors.New("update failed")
	if got := New().Error(plain); got != plain {
		t.Errorf("an error without secrets changed: %v", got)
	}
	got := New().Error(errors.New("open postgres://u:S3cret@db/x"))
	if got.Error() != "open postgres://u:[redacted]@db/x" || errors.Unwrap(got) != nil {
		t.Errorf("got %v", got)
	}
	if New().Error(nil) != nil {
		t.Error("nil is not nil")
	}
}

func TestTheWriterRedactsEachLineAndFlushesTheLastOne(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, New("dop_v1_0123456789"))
	// A URL and a token split across writes, as a pipe delivers them.
	for _, chunk := range []string{"Previewing update (postgres://u:S3", "cret@db/x)\ntoken dop_v1_01", "23456789\nlast dop_v1_0123", "456789"} {
		if n, err := w.Write([]byte(chunk)); err != nil || n != len(chunk) {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if want := "Previewing update (postgres://u:[redacted]@db/x)\ntoken [redacted]\n"; out.String() != want {
		t.Errorf("before Flush:\n%q\nwant\n%q", out.String(), want)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "\nlast [redacted]") {
		t.Errorf("after Flush:\n%q", out.String())
	}
	if err := w.Flush(); err != nil || strings.Count(out.String(), "last") != 1 {
		t.Errorf("a second Flush wrote again: %q, %v", out.String(), err)
	}
}

func TestTheWriterHoldsNoMoreThanABoundedUnfinishedLine(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, nil)
	chunk := strings.Repeat("x", 1024)
	for i := 0; i < 2*maxLine/len(chunk); i++ {
		_, _ = w.Write([]byte(chunk))
	}
	if len(w.buf) > maxLine || out.Len() == 0 {
		t.Errorf("holds %d bytes, wrote %d", len(w.buf), out.Len())
	}
}

func TestRedactingALargeTextTakesLinearTime(t *testing.T) {
	r := New("dop_v1_0123456789", "civoTOKEN42", "correct horse")
	// Text the patterns nearly match everywhere: many schemes, colons and equals signs.
	text := strings.Repeat("a://b:c password= x=y:z@ ", 40000) // about 1 MB
	start := time.Now()
	r.String(text)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("1 MB took %s", took)
	}
}

func TestAJSONDocumentStaysValidAndHoldsNoSecret(t *testing.T) {
	r := New("dop_v1_0123456789")
	tests := []struct{ name, doc string }{
		{"a URL in a string", `{"error": "open \"postgres://u:S3cret@db/x\": refused"}`},
		{"an escaped quoted password", `{"error": "host=db password=\"S3cret phrase\" dbname=x"}`},
		{"a setting whose quote is the string's", `{"a": "password=", "b": "S3cret", "c": "dop_v1_0123456789"}`},
		{"a token as a key", `{"dop_v1_0123456789": 1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.JSON([]byte(tt.doc))
			if !json.Valid(got) {
				t.Fatalf("not JSON: %s", got)
			}
			for _, secret := range []string{"S3cret phrase", "S3cret@", "dop_v1_0123456789"} {
				if strings.Contains(string(got), secret) {
					t.Errorf("holds %q: %s", secret, got)
				}
			}
		})
	}
}
