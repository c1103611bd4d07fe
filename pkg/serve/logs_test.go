package serve_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/serve"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/google/uuid"
)

// logBuffer is a log written by several goroutines, read by the test.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines are the log's JSON lines, decoded.
func (b *logBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(b.buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("a log line that is not JSON: %q", line)
		}
		out = append(out, m)
	}
	return out
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// askWithID sends GET path with the token and X-Request-Id id ("" for none), and returns the
// X-Request-Id answered.
func askWithID(t *testing.T, s *service, path, token, id string) string {
	t.Helper()
	req, err := http.NewRequest("GET", s.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if id != "" {
		req.Header.Set("X-Request-Id", id)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.Header.Get("X-Request-Id")
}

// Each request is answered with its id, the client's when sane; every line it logs carries that
// id; and no token reaches the log, whether sent as the credential or as the request's id.
// Promise: api-logs-request-id
func TestEachRequestsLogLinesCarryTheIdItIsAnsweredWith(t *testing.T) {
	log := &logBuffer{}
	for _, db := range databases[:1] {
		url, b, tokens := launch(t, db.url(t), 1, func(o *serve.Options) { o.Log = slog.New(slog.NewJSONHandler(log, nil)) })
		s := &service{t: t, url: url, backend: b, tokens: tokens}
		token := tokens[auth.Viewer]
		for _, tc := range []struct {
			name, sent string
			kept       bool
		}{
			{"a UUID the client sent is kept", "0b6f3c2e-9d4a-4f7e-8c1b-2a5d6e7f8a9b", true},
			{"a trace id with dots and colons is kept", "trace.1:span-2_x", true},
			{"no id gets one of serve's", "", false},
			{"an id with spaces gets one of serve's", "forged level=ERROR msg=x", false},
			{"an id longer than 128 gets one of serve's", strings.Repeat("a", 129), false},
			{"an API token sent as the id gets one of serve's", token, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got := askWithID(t, s, "/api/v1/clusters", token, tc.sent)
				if tc.kept && got != tc.sent || !tc.kept && (got == tc.sent || got == "") {
					t.Fatalf("X-Request-Id answered %q for %q (kept: %v)", got, tc.sent, tc.kept)
				}
				for _, line := range log.lines(t) {
					if line["msg"] == "request" && line["request_id"] == got {
						return
					}
				}
				t.Errorf("no request line carries request_id %q:\n%s", got, log)
			})
		}
		// A failure's line (a 500) carries the request's id too: the objects' table renamed breaks
		// every read of one (of an id never read, which no cache answers).
		if _, err := storeOf(t, url).DB.Exec(`ALTER TABLE clusterplane_objects RENAME TO clusterplane_objects_gone`); err != nil {
			t.Fatal(err)
		}
		id := askWithID(t, s, "/api/v1/clusters/"+uuid.NewString(), token, "after-the-database-closed")
		var failed bool
		for _, line := range log.lines(t) {
			if line["msg"] == "request failed" {
				failed = true
				if line["request_id"] != id {
					t.Errorf("a request's failure was logged without its id %q: %v", id, line)
				}
			}
		}
		if !failed {
			t.Errorf("no failure was logged:\n%s", log)
		}
		if strings.Contains(log.String(), token) {
			t.Errorf("the log holds the caller's token:\n%s", log)
		}
	}
}

// Every line a job logs carries its job's id and its object's, and a reconcile's its stack.
// Promise: api-logs-job-ids
func TestEachReconcilesLogLinesCarryTheJobObjectAndStack(t *testing.T) {
	log := &logBuffer{}
	url, b, tokens := launch(t, databases[0].url(t), 1, func(o *serve.Options) { o.Log = slog.New(slog.NewJSONHandler(log, nil)) })
	s := &service{t: t, url: url, backend: b, tokens: tokens}
	_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
	id := c["id"].(string)
	s.waitReady("/api/v1/clusters/" + id)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var ended map[string]any
		for _, line := range log.lines(t) {
			if line["msg"] == "job ended" && line["object_id"] == id && line["job_kind"] == "clusterplane_reconcile" {
				ended = line
			}
		}
		if ended != nil {
			if ended["job_id"] == nil || ended["stack"] != "digitaloceankubernetescluster/api-fra1" || ended["outcome"] != "completed" {
				t.Errorf("the reconcile's line: %v, want its job_id, the stack digitaloceankubernetescluster/api-fra1 and outcome completed", ended)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no line says the cluster's reconcile ended:\n%s", log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
