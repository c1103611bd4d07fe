package tracing_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/serve/tracing"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// Each request to a cloud is a span, a child of the span its caller runs under (serve's
// request or job), timed as the request was.
func TestACloudRequestIsAChildSpanOfItsCallers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{}`)) }))
	defer srv.Close()
	spans := tracetest.NewSpanRecorder()
	before := otel.GetTracerProvider()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)))
	t.Cleanup(func() { otel.SetTracerProvider(before) })
	stop := tracing.CloudSpans()
	defer stop()
	ctx, parent := otel.Tracer("test").Start(context.Background(), "the caller")
	c := cloudapi.New(srv.URL, cloudapi.Bearer("a-token"), cloudapi.Options{Cloud: "testcloud"})
	if err := c.Do(ctx, "GET", "/v2/account", nil, nil); err != nil {
		t.Fatal(err)
	}
	parent.End()
	for _, sp := range spans.Ended() {
		if sp.Name() == "GET testcloud" {
			if sp.Parent().SpanID() != parent.SpanContext().SpanID() {
				t.Errorf("the cloud request's span has parent %s, want the caller's %s", sp.Parent().SpanID(), parent.SpanContext().SpanID())
			}
			if !sp.EndTime().After(sp.StartTime()) {
				t.Errorf("the span ends at %s, not after it starts at %s", sp.EndTime(), sp.StartTime())
			}
			return
		}
	}
	t.Errorf("no span of the cloud request among %d", len(spans.Ended()))
}

func TestTracesAreOffWithoutAnEndpoint(t *testing.T) {
	t.Setenv(tracing.EndpointEnv, "")
	before := otel.GetTracerProvider()
	stop, err := tracing.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if otel.GetTracerProvider() != before {
		t.Error("Start set a tracer provider without " + tracing.EndpointEnv)
	}
}
