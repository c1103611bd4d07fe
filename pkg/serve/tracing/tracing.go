// Package tracing is serve's optional OpenTelemetry traces: off unless
// OTEL_EXPORTER_OTLP_ENDPOINT names a collector, then a span per request and per job (made by
// the API and the workers from Tracer), and each cloud request of the process a child of the
// span it was sent under (CloudSpans).
package tracing

import (
	"context"
	"os"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/pkg/errors"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// EndpointEnv turns the traces on: the OTLP collector's address, as OpenTelemetry's SDKs read it.
const EndpointEnv = "OTEL_EXPORTER_OTLP_ENDPOINT"

// Name is the instrumentation's name, the tracer's.
const Name = "github.com/clusterplane/clusterplane/pkg/serve"

// Start sends the spans to the OTLP collector $OTEL_EXPORTER_OTLP_ENDPOINT names (gRPC; the
// exporter reads its other OTEL_EXPORTER_OTLP_* settings itself), and returns the function
// that flushes and stops it. Without the variable nothing is set: spans are made by the no-op
// provider, which records and sends nothing (each still costs an allocation of a few hundred
// bytes).
func Start(ctx context.Context) (stop func(context.Context) error, err error) {
	if os.Getenv(EndpointEnv) == "" {
		return func(context.Context) error { return nil }, nil
	}
	exp, err := otlptracegrpc.New(ctx)
	if err != nil {
		return nil, errors.Wrap(err, "start the OTLP trace exporter ($"+EndpointEnv+")")
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "clusterplane-serve"))))
	otel.SetTracerProvider(tp)
	stopSpans := CloudSpans()
	return func(ctx context.Context) error {
		stopSpans()
		return tp.Shutdown(ctx)
	}, nil
}

// CloudSpans makes a span of each cloud request of the process (cloudapi's observer), a child
// of the span of its context, until the returned function is called.
func CloudSpans() (stop func()) {
	return cloudapi.Observe(func(ctx context.Context, r cloudapi.Request) {
		_, span := Tracer().Start(ctx, r.Method+" "+r.Cloud, trace.WithSpanKind(trace.SpanKindClient), trace.WithTimestamp(r.Start),
			trace.WithAttributes(attribute.String("cloud", r.Cloud), attribute.String("http.request.method", r.Method),
				attribute.String("url.path", r.Path), attribute.Int("http.response.status_code", r.Status)))
		span.End(trace.WithTimestamp(r.Start.Add(r.Duration)))
	})
}

// Tracer is serve's tracer, from the global provider (a no-op one while traces are off).
func Tracer() trace.Tracer { return otel.Tracer(Name) }
