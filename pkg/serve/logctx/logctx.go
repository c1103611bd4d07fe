// Package logctx carries the attributes a log line of a request or a job needs (its request id;
// its job, object and stack) in the context, and a slog.Handler that writes them on every line
// logged with that context, so that every line of one request or one reconcile can be followed.
package logctx

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
)

type key struct{}

// bag is the attributes of one context and those derived from it: With makes a new one, Add
// adds to it in place, so that what a job's worker learns (its stack) reaches the line the job's
// middleware logs when the job ends, from the same context.
type bag struct {
	mu    sync.Mutex
	attrs []slog.Attr
}

// With returns ctx carrying attrs beside those it carries already; a later attribute of a key
// replaces an earlier one.
func With(ctx context.Context, attrs ...slog.Attr) context.Context {
	return context.WithValue(ctx, key{}, &bag{attrs: merge(Attrs(ctx), attrs)})
}

// Add adds attrs to those ctx carries, for every context that shares them (made by With, and
// derived from it since); without With first it does nothing.
func Add(ctx context.Context, attrs ...slog.Attr) {
	if b, ok := ctx.Value(key{}).(*bag); ok {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.attrs = merge(b.attrs, attrs)
	}
}

// Attrs are the attributes ctx carries.
func Attrs(ctx context.Context) []slog.Attr {
	b, ok := ctx.Value(key{}).(*bag)
	if !ok {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.attrs)
}

// merge is old with attrs added, an attribute of attrs replacing one of old of the same key.
func merge(old, attrs []slog.Attr) []slog.Attr {
	out := make([]slog.Attr, 0, len(old)+len(attrs))
	for _, a := range old {
		if !slices.ContainsFunc(attrs, func(b slog.Attr) bool { return b.Key == a.Key }) {
			out = append(out, a)
		}
	}
	return append(out, attrs...)
}

// Handler writes the context's attributes (With) on each line h writes.
type Handler struct{ slog.Handler }

// Handle adds the context's attributes to r.
func (h Handler) Handle(ctx context.Context, r slog.Record) error {
	if attrs := Attrs(ctx); len(attrs) > 0 {
		r = r.Clone()
		r.AddAttrs(attrs...)
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs and WithGroup keep the handler a Handler.
func (h Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return Handler{h.Handler.WithAttrs(attrs)}
}
func (h Handler) WithGroup(name string) slog.Handler { return Handler{h.Handler.WithGroup(name)} }

// MaxRequestID bounds an X-Request-Id taken from a request.
const MaxRequestID = 128

// SaneRequestID tells whether id, a client's X-Request-Id, may be used as it is: 1 to
// MaxRequestID letters, digits and . _ : - (a UUID, a trace id). Anything else (control
// characters that would forge log lines, a megabyte of text) is replaced by an id of serve's.
func SaneRequestID(id string) bool {
	if id == "" || len(id) > MaxRequestID {
		return false
	}
	return strings.IndexFunc(id, func(c rune) bool {
		return (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && !strings.ContainsRune("._:-", c)
	}) < 0
}
