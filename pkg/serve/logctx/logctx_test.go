package logctx_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/serve/logctx"
)

func TestARequestIDIsTakenOnlyWhenItIsShortAndPlain(t *testing.T) {
	for _, tc := range []struct {
		name, id string
		sane     bool
	}{
		{"a UUID is taken", "0b6f3c2e-9d4a-4f7e-8c1b-2a5d6e7f8a9b", true},
		{"a W3C trace id with dots and colons is taken", "00-4bf92f35.span:1_a", true},
		{"an empty id is not", "", false},
		{"one of 129 characters is not", strings.Repeat("a", 129), false},
		{"one with a space is not", "a b", false},
		{"one with a line break is not, which would forge a log line", "a\nlevel=ERROR", false},
		{"one with a quote is not", `a"b`, false},
		{"one with non-ASCII letters is not", "идентификатор", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := logctx.SaneRequestID(tc.id); got != tc.sane {
				t.Errorf("SaneRequestID(%q) = %v, want %v", tc.id, got, tc.sane)
			}
		})
	}
}

// What a job's worker adds (its stack) is on the line its middleware logs from the context the
// worker was given; a context made apart with With does not leak into its parent.
func TestAddReachesEveryLineOfTheContextAndWithStaysApart(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(logctx.Handler{Handler: slog.NewTextHandler(&out, nil)})
	job := logctx.With(context.Background(), slog.Int64("job_id", 7))
	worker, cancel := context.WithCancel(job)
	defer cancel()
	logctx.Add(worker, slog.String("stack", "p/s"))
	_ = logctx.With(job, slog.String("request_id", "apart"))
	log.InfoContext(job, "job ended")
	if got := out.String(); !strings.Contains(got, "job_id=7") || !strings.Contains(got, "stack=p/s") || strings.Contains(got, "apart") {
		t.Errorf("the line: %q, want job_id=7 and stack=p/s, and no request_id", got)
	}
}
