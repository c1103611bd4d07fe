package api

import (
	"cmp"
	"crypto/rand"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/logctx"
	"github.com/clusterplane/clusterplane/pkg/serve/tracing"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// RequestIDHeader carries a request's id, both ways.
const RequestIDHeader = "X-Request-Id"

// quiet are the paths whose requests are logged at debug level: the probes and the scrapes,
// which come every few seconds and say nothing of what callers did.
var quiet = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}

// traced gives each request an id, answers it in X-Request-Id, puts it in the request's context
// (every line logged with that context carries it, logctx), and logs the request once answered:
// its method, path, status and duration, never a header or the query, which may hold
// credentials; and tells Observe of it. The client's X-Request-Id is the id when sane (logctx.SaneRequestID) and not an
// API token sent there by mistake; else a new one.
func (s *Server) traced(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(RequestIDHeader)
		if !logctx.SaneRequestID(id) || strings.HasPrefix(strings.ToLower(id), auth.TokenPrefix) {
			id = rand.Text()
		}
		w.Header().Set(RequestIDHeader, id)
		ctx, span := tracing.Tracer().Start(logctx.With(r.Context(), slog.String("request_id", id)), r.Method,
			trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attribute.String("request_id", id)))
		defer span.End()
		r = r.WithContext(ctx)
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		// The span is named by the route's pattern, known once the mux has run: never the path.
		span.SetName(cmp.Or(r.Pattern, r.Method+" unmatched"))
		span.SetAttributes(attribute.Int("http.response.status_code", sw.status))
		if s.Observe != nil {
			s.Observe(r, sw.status, time.Since(start))
		}
		if s.Log == nil {
			return
		}
		level := slog.LevelInfo
		if quiet[r.URL.Path] {
			level = slog.LevelDebug
		}
		s.Log.LogAttrs(ctx, level, "request", slog.String("method", r.Method), slog.String("path", r.URL.EscapedPath()),
			slog.Int("status", sw.status), slog.Duration("duration", time.Since(start)))
	})
}

// statusWriter remembers the status written.
type statusWriter struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wroteHeader {
		w.status, w.wroteHeader = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wroteHeader = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the writer beneath.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
