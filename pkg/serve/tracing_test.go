package serve_test

import (
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/google/uuid"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// With traces on, a request is a span named by its route's pattern (never its path, with its
// id) and a reconcile a span of its job, with the object's id.
// Promise: api-traces-span-per-request-and-job
func TestARequestAndAReconcileEachMakeASpan(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	before := otel.GetTracerProvider()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)))
	t.Cleanup(func() { otel.SetTracerProvider(before) })
	url, b, tokens := launch(t, databases[0].url(t), 1)
	s := &service{t: t, url: url, backend: b, tokens: tokens}
	_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
	id := c["id"].(string)
	s.waitReady("/api/v1/clusters/" + id)
	missing := uuid.NewString()
	s.call(auth.Viewer, "GET", "/api/v1/clusters/"+missing, "")
	// The reconcile's span ends when its job returns, just after the object is written Ready:
	// its end is waited for, a while.
	var request, job bool
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		request, job = false, false
		for _, sp := range spans.Ended() {
			attrs := map[string]string{}
			for _, a := range sp.Attributes() {
				attrs[string(a.Key)] = a.Value.Emit()
			}
			switch {
			case sp.Name() == "GET /api/v1/clusters/{id}" && attrs["http.response.status_code"] == "404":
				request = true
			case sp.Name() == "clusterplane_reconcile" && attrs["object_id"] == id && attrs["outcome"] == "completed":
				job = true
			}
			if sp.Name() == "GET /api/v1/clusters/"+missing {
				t.Fatalf("a span is named by the path: %s", sp.Name())
			}
		}
		if request && job || time.Now().After(deadline) {
			break
		}
	}
	if !request || !job {
		t.Errorf("the request's span: %v, the reconcile's: %v; want both", request, job)
	}
}
