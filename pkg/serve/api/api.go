// Package api is `clusterplane serve`'s HTTP API: the seed's clusters and node pools routes over
// the store, each request authenticated (package auth) and allowed by its role, each body checked
// by the same reader and rules as `clusterplane validate` (package body) before it is saved, and
// every update and delete conditional on the resource version the client read (If-Match).
package api

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"mime"
	"net/http"
	"net/url"
	pathpkg "path"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/pipeline"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/body"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// maxBody bounds a request's body: a manifest is a few kilobytes.
const maxBody = 1 << 20

// Server answers the API's routes.
type Server struct {
	Store *store.Store
	Auth  *auth.Authenticator
	Kinds kinds.List
	// Policy, when set, is the organisation's policy: a body it denies is a VALIDATION_ERROR.
	// It is judged as the worker's pipeline judges it (deploy.Judge), against what the stack
	// last deployed: Backend opens where the stacks live, and is needed with a Policy.
	Policy  *policy.Policy
	Backend func() (stackstate.Backend, error)
	// Log is told what went wrong on the server's side (a 500); never a request's credentials.
	Log *slog.Logger

	// TokenCacheTTL is how long a verified API token is believed before its record is read
	// again (and so how long a revocation may take to reach this replica); 0 means
	// DefaultTokenCacheTTL, a negative value reads the record on every request.
	TokenCacheTTL time.Duration

	// limits counts each authenticated caller's requests; failures, each address's failed
	// authentications; lookups, the credentials not seen before from an address that has spent
	// its failures. All nil when nobody is limited.
	limits, failures, lookups *callerLimits
	creds                     *credentials
	// lists are lists' pages, and objects the objects read by id, as last encoded, served again
	// while nothing changed.
	lists, objects answers

	// QueueVersion is the version of the queue's tables (the last of River's migrations) this
	// build makes: GET /readyz answers 503 while the database's is older. 0 checks none.
	QueueVersion int
	// Metrics, when set, is served at GET /metrics without a token (what it says names no object
	// and holds no secret); Observe, when set, is told of every request once it is answered (the
	// metrics' count of requests), with the route's pattern set on r by then.
	Metrics http.Handler
	Observe func(r *http.Request, status int, took time.Duration)
	// shuttingDown is set once the replica began to shut down: GET /readyz answers 503 from then.
	shuttingDown atomic.Bool
}

// ShuttingDown makes GET /readyz answer 503 from now on, so that a load balancer stops sending
// requests: call it when shutdown begins, before the listener closes.
func (s *Server) ShuttingDown() { s.shuttingDown.Store(true) }

// ReadyTimeout bounds GET /readyz's questions to the database: one that does not answer within
// it is taken as down.
const ReadyTimeout = time.Second

// readyz answers GET /readyz: ok while the replica can serve requests (its database answers,
// its tables are not older than this build's, and it is not shutting down), else 503 saying
// which. GET /healthz is the process's own liveness, and asks the database nothing.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if why := s.notReady(r.Context()); why != "" {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": &Error{Status: http.StatusServiceUnavailable,
			Code: "NOT_READY", Message: why}})
		return
	}
	_, _ = io.WriteString(w, "ok\n")
}

// notReady says why the replica cannot serve requests; "" when it can. The database's own
// error is logged, not sent: the route needs no token.
func (s *Server) notReady(ctx context.Context) string {
	if s.shuttingDown.Load() {
		return "shutting down"
	}
	ctx, cancel := context.WithTimeout(ctx, ReadyTimeout)
	defer cancel()
	// The ping first: on PostgreSQL it replaces the pool's connections that the server's
	// restart broke, which a query on one would fail with instead.
	var v store.Versions
	err := s.Store.Ping(ctx)
	if err == nil {
		v, err = s.Store.Versions(ctx)
	}
	if err != nil {
		if s.Log != nil {
			s.Log.WarnContext(ctx, "not ready: the database does not answer", "error", err.Error())
		}
		return "the database does not answer"
	}
	switch {
	case v.Tables < store.SchemaVersion:
		return fmt.Sprintf("migrations behind: the service's tables are at version %d, want %d", v.Tables, store.SchemaVersion)
	case v.Queue < s.QueueVersion:
		return fmt.Sprintf("migrations behind: the queue's tables are at version %d, want %d", v.Queue, s.QueueVersion)
	}
	return ""
}

// LimitCallers answers 429 to a caller (a token's subject) that sends more than perSecond
// requests a second after a burst of burst, and to an address whose failed authentications
// exceed the same rate and burst. Call it before Handler; without it nobody is limited.
func (s *Server) LimitCallers(perSecond float64, burst int) {
	if perSecond > 0 {
		s.limits = newCallerLimits(perSecond, max(burst, 1))
		s.failures = newCallerLimits(perSecond, max(burst, 1))
		s.lookups = newCallerLimits(perSecond, max(int(perSecond), 1))
	}
}

// Handler is the API's routes.
func (s *Server) Handler() http.Handler {
	ttl := s.TokenCacheTTL
	if ttl == 0 {
		ttl = DefaultTokenCacheTTL
	}
	s.creds = newCredentials(ttl)
	s.lists.max, s.objects.max = maxPages, maxObjects
	mux := http.NewServeMux()
	mux.HandleFunc("GET /openapi.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(OpenAPI())
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	mux.HandleFunc("GET /readyz", s.readyz)
	if s.Metrics != nil {
		mux.Handle("GET /metrics", s.Metrics)
	}
	for _, rt := range Routes {
		mux.Handle(rt.Method+" "+rt.Path, s.guard(rt.Permission, rt.checked(rt.handler(s))))
	}
	// Outermost: traced reads the pattern the mux sets on the request it is given, which is the
	// one traced made, for the log, the span and the metrics.
	return s.traced(s.routed(mux))
}

// routed answers in the API's error body what the mux answers in text or HTML: a path that is
// not clean (which the mux redirects), a path no route has (404), and a method a path does not
// take (405, with Allow). A path that is not clean is refused, not redirected: a client that
// follows the redirect may resend its write elsewhere than it meant, and one that does not gets
// HTML it cannot read. The 404 and the 405 are the mux's own route "/", which every request no
// other route takes reaches, so that a request that is served is matched once, not twice.
func (s *Server) routed(mux *http.ServeMux) http.Handler {
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		// No route matched: the metrics and the span (traced) read an empty pattern as that.
		r.Pattern = ""
		path := r.URL.EscapedPath()
		// "/" takes every method: a path that another route takes with another method is a 405.
		var allow []string
		for _, m := range []string{"DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"} {
			probe := r.Clone(r.Context())
			probe.Method = m
			if _, pattern := mux.Handler(probe); pattern != "" && pattern != "/" {
				allow = append(allow, m)
			}
		}
		if allow != nil {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			s.fail(w, r, &Error{Status: http.StatusMethodNotAllowed, Code: "METHOD_NOT_ALLOWED",
				Message: path + " does not take " + r.Method + ": it takes " + strings.Join(allow, ", ")})
			return
		}
		s.fail(w, r, &Error{Status: http.StatusNotFound, Code: "NOT_FOUND", Message: "no route has the path " + path,
			Details: "the routes are in docs/api.md and GET /openapi.json"})
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.EscapedPath()
		if clean := cleanPath(path); clean != path {
			s.fail(w, r, &body.ProblemsError{Problems: []body.Problem{{Field: "(path)", Rule: "path.clean",
				Message: "has an empty, . or .. segment: send the path itself, " + clean}}})
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// cleanPath is path as the mux cleans it: no empty, . or .. segments, and a trailing slash kept.
func cleanPath(p string) string {
	if p == "" || p[0] != '/' {
		p = "/" + p
	}
	clean := pathpkg.Clean(p)
	if strings.HasSuffix(p, "/") && clean != "/" {
		clean += "/"
	}
	return clean
}

// checked checks, before h runs, what the route's request path shares: that the query names
// only the route's parameters, and that a body is JSON (415 otherwise), at most maxBody bytes
// (413) and names no key twice in an object (400). The body is read whole here, so h reads it
// from memory.
func (rt Route) checked(h handler) handler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		if err := rt.checkQuery(r); err != nil {
			return err
		}
		if !rt.takesBody() {
			return h(w, r, p)
		}
		if err := jsonContent(r); err != nil {
			return err
		}
		data, err := io.ReadAll(r.Body)
		if err != nil {
			return fmt.Errorf("read the body: %w", err)
		}
		if field := duplicateKey(data); field != "" {
			return &body.ProblemsError{Problems: []body.Problem{{Field: field, Rule: "json.duplicate_key",
				Message: "is written more than once in its object: JSON readers differ on which one counts, so write it once"}}}
		}
		r.Body = io.NopCloser(bytes.NewReader(data))
		return h(w, r, p)
	}
}

// checkQuery refuses a query parameter the route does not take: one misspelt or meant for another
// route (?cluster_id= on GET /api/v1/nodepools) would otherwise be ignored, and the answer look
// like what was asked for.
func (rt Route) checkQuery(r *http.Request) error {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return &body.ProblemsError{Problems: []body.Problem{{Field: "(query)", Rule: "query.syntax", Message: err.Error()}}}
	}
	takes := "none"
	if names := rt.query(); names != nil {
		takes = strings.Join(names, ", ")
	}
	var problems []body.Problem
	for _, name := range slices.Sorted(maps.Keys(q)) {
		if !slices.Contains(rt.query(), name) {
			problems = append(problems, body.Problem{Field: name, Rule: "query.unknown",
				Message: "is not a parameter of " + rt.Method + " " + rt.Path + ", which takes " + takes})
		}
	}
	if problems != nil {
		return &body.ProblemsError{Problems: problems}
	}
	return nil
}

// jsonContent refuses a body sent as anything but JSON in UTF-8 (415): a body typed text/plain
// or as a form is a client's mistake, not a manifest to store. A body without a Content-Type is
// read as JSON.
func jsonContent(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return nil
	}
	mediaType, params, err := mime.ParseMediaType(ct)
	if err == nil && mediaType == "application/json" {
		if charset, ok := params["charset"]; !ok || strings.EqualFold(charset, "utf-8") {
			return nil
		}
	}
	return &Error{Status: http.StatusUnsupportedMediaType, Code: "UNSUPPORTED_MEDIA_TYPE",
		Message: "the body is " + strconv.Quote(ct) + ": send it as Content-Type: application/json (UTF-8)"}
}

// duplicateKey is the first key that an object in data writes twice, at any depth, as a field
// path ("spec.platform.digitalocean.region", "conditions[1].type"); "" when no key is written
// twice. encoding/json keeps the last of two silently, and another reader may keep the first,
// so a body that repeats a key does not say one thing. Data that is not JSON has no duplicate
// here: the handler's decoder says what is wrong with it.
func duplicateKey(data []byte) string {
	type container struct {
		path    string
		object  bool
		keys    map[string]bool
		wantKey bool   // an object's next token is a key
		member  string // the path of the object's member being read
		index   int    // a list's next element
	}
	var stack []*container
	// valuePath is the path of the value about to be read, and moves past it.
	valuePath := func() string {
		if len(stack) == 0 {
			return ""
		}
		c := stack[len(stack)-1]
		if c.object {
			c.wantKey = true
			return c.member
		}
		c.index++
		return c.path + "[" + strconv.Itoa(c.index-1) + "]"
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			stack = append(stack, &container{path: valuePath(), object: tok == json.Delim('{'), keys: map[string]bool{}, wantKey: true})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		default:
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
				c := stack[n-1]
				key, _ := tok.(string)
				member := key
				if c.path != "" {
					member = c.path + "." + key
				}
				if c.keys[key] {
					return member
				}
				c.keys[key], c.member, c.wantKey = true, member, false
				continue
			}
			valuePath()
		}
		if len(stack) == 0 {
			return "" // the first value is read: what follows it is the decoder's to refuse
		}
	}
}

// handler is one route's work once the caller is allowed.
type handler func(w http.ResponseWriter, r *http.Request, p auth.Principal) error

// guard authenticates the request and checks its role before h runs, and writes h's error.
func (s *Server) guard(need auth.Permission, h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, refused, err := s.authenticate(w, r)
		if refused {
			return
		}
		switch {
		case errors.Is(err, auth.ErrUnauthenticated):
			w.Header().Set("WWW-Authenticate", `Bearer realm="clusterplane"`)
			s.fail(w, r, &Error{Status: http.StatusUnauthorized, Code: "UNAUTHENTICATED", Message: "a valid bearer token is required"})
			return
		case err != nil:
			s.fail(w, r, err)
			return
		case !p.Role.Can(need):
			role := string(p.Role)
			if role == "" {
				role = "no role"
			}
			s.fail(w, r, &Error{Status: http.StatusForbidden, Code: "FORBIDDEN",
				Message: fmt.Sprintf("%s (%s) may not %s", p.Subject, role, need)})
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		if err := h(w, r, p); err != nil {
			s.fail(w, r, err)
		}
	})
}

// Error is an API error in the seed's shape.
type Error struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Details string `json:"details"`
	// Problems are a VALIDATION_ERROR's problems, each naming the field as the body wrote it.
	Problems []body.Problem `json:"problems,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// fail writes err as the seed's error body; an error of no known kind is a 500 whose cause is
// logged, not sent.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var apiErr *Error
	var problems *body.ProblemsError
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &apiErr):
	case errors.As(err, &problems):
		apiErr = validation(problems.Problems)
	case errors.As(err, &tooBig):
		apiErr = &Error{Status: http.StatusRequestEntityTooLarge, Code: "VALIDATION_ERROR", Message: "the body is larger than 1 MiB"}
	case errors.Is(err, store.ErrNotFound):
		apiErr = &Error{Status: http.StatusNotFound, Code: "NOT_FOUND", Message: "not found"}
		if err.Error() != apiErr.Message {
			apiErr.Details = err.Error() // which object: "cluster <id>: not found"
		}
	case errors.Is(err, store.ErrDeleting):
		apiErr = &Error{Status: http.StatusConflict, Code: "CONFLICT", Message: err.Error() + ": it goes once its stack is destroyed"}
	case errors.Is(err, store.ErrExists):
		apiErr = &Error{Status: http.StatusConflict, Code: "CONFLICT", Message: err.Error()}
	case errors.Is(err, store.ErrStale):
		apiErr = &Error{Status: http.StatusPreconditionFailed, Code: "PRECONDITION_FAILED",
			Message: "the object changed since it was read: read it again (its resource_version) and retry"}
	default:
		if s.Log != nil {
			s.Log.ErrorContext(r.Context(), "request failed", "error", err.Error())
		}
		apiErr = &Error{Status: http.StatusInternalServerError, Code: "INTERNAL", Message: "the server failed; its log says why"}
	}
	writeJSON(w, apiErr.Status, map[string]any{"error": apiErr})
}

func validation(problems []body.Problem) *Error {
	lines := make([]string, len(problems))
	for i, p := range problems {
		lines[i] = p.Field + ": " + p.Message
	}
	return &Error{Status: http.StatusBadRequest, Code: "VALIDATION_ERROR", Message: "Validation failed",
		Details: strings.Join(lines, "; "), Problems: problems}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	// Compact, as lists are: indenting took as long as encoding, and a client that shows the
	// answer to a person (jq, a browser) lays it out itself.
	_ = json.NewEncoder(w).Encode(v)
}

// writeObject writes an object with its resource version as the ETag, which If-Match takes.
func writeObject(w http.ResponseWriter, status int, o store.Object) {
	w.Header().Set("ETag", strconv.Quote(o.ResourceVersion))
	writeJSON(w, status, o)
}

// precondition is a conditional write's If-Match, read as RFC 9110 says: "*" matches any
// version, and a list of ETags matches when one of them is the current version, compared
// strongly: a weak ETag (W/"12") never matches, since it does not promise the exact version.
type precondition struct {
	any bool
	// versions are the strong ETags' values.
	versions []string
}

// ifMatch reads a conditional write's If-Match. A write without one is refused (428): two
// clients scaling one pool must not both win, the last silently.
func ifMatch(r *http.Request) (precondition, error) {
	v := strings.TrimSpace(strings.Join(r.Header.Values("If-Match"), ","))
	if v == "" {
		return precondition{}, &Error{Status: http.StatusPreconditionRequired, Code: "PRECONDITION_REQUIRED",
			Message: "updates and deletes are conditional: send If-Match with the resource_version you read"}
	}
	if v == "*" {
		return precondition{any: true}, nil
	}
	var p precondition
	for rest := v; ; {
		rest = strings.TrimLeft(rest, " \t")
		if rest == "" {
			return p, nil
		}
		if rest[0] == ',' { // RFC 9110 lets a list have empty members
			rest = rest[1:]
			continue
		}
		weak := strings.HasPrefix(rest, "W/")
		rest = strings.TrimPrefix(rest, "W/")
		var tag string
		if strings.HasPrefix(rest, `"`) {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return p, badIfMatch("an ETag is not closed by a quote")
			}
			tag, rest = rest[1:1+end], rest[2+end:]
		} else {
			// A bare version, 12: not an RFC 9110 ETag, but what clients were told works.
			end := strings.IndexAny(rest, ", \t")
			if end < 0 {
				end = len(rest)
			}
			tag, rest = rest[:end], rest[end:]
			if tag == "" {
				return p, badIfMatch("W/ is not followed by a quoted ETag")
			}
		}
		rest = strings.TrimLeft(rest, " \t")
		if rest != "" && rest[0] != ',' {
			return p, badIfMatch("ETags are separated by commas")
		}
		if !weak {
			p.versions = append(p.versions, tag)
		}
	}
}

func badIfMatch(why string) error {
	return &body.ProblemsError{Problems: []body.Problem{{Field: "If-Match", Rule: "header.if_match",
		Message: why + `: send "*" or the ETags read, "12" or "11", "12"`}}}
}

// version is what the store compares with the object's version, which is current when read:
// the current version when the precondition names it (the store then refuses the write if the
// object changed since), store.AnyVersion for "*", and ErrStale (412) when it names no version
// that is current.
func (p precondition) version(current string) (string, error) {
	if p.any {
		return store.AnyVersion, nil
	}
	if slices.Contains(p.versions, current) {
		return current, nil
	}
	return "", store.ErrStale
}

// readBody reads and checks a body's JSON.
func readBody(r *http.Request) (body.Body, error) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return body.Body{}, err
	}
	return body.Parse(data)
}

// judge evaluates the policy over a body's manifest (body.Read's, the one the update's other
// checks and, once saved, the worker read the body into) against what its stack last deployed,
// and refuses what it denies. The worker's pipeline judges the object's manifest again before it
// deploys, through the same pipeline.Judge over the same body.Read of the stored body: the two are
// different moments, and both are needed. This one refuses a body before it is saved, so that a
// denial is the request's answer rather than a status later; the worker's refuses at deploy time
// what the policy denies then, when the policy may have changed (a replica started with another
// --policy) or the stack deployed since (what a rule reading old reads).
func (s *Server) judge(ctx context.Context, m deploytarget.Manifest) error {
	if s.Policy == nil {
		return nil
	}
	if s.Backend == nil {
		return errors.New("the policy is judged against what each stack last deployed, and the server has no backend to read it")
	}
	b, err := s.Backend()
	if err != nil {
		return err
	}
	results, err := pipeline.Judge(ctx, s.Policy, b, m)
	if err != nil {
		return err
	}
	var denied []body.Problem
	for _, res := range results {
		if res.Denied() {
			denied = append(denied, body.Problem{Field: "spec", Rule: "policy." + res.Rule, Message: res.Message})
		}
	}
	if denied != nil {
		return &body.ProblemsError{Problems: denied}
	}
	return nil
}

// refuseDelete says why a cluster may not go: it still has pools, or it is protected
// (deletionProtection, absent meaning true), which `clusterplane destroy` refuses too.
func refuseDelete(ctx context.Context, tx *sql.Tx, o store.Object) error {
	if o.Type != store.Cluster {
		return nil
	}
	n, err := store.PoolsOf(ctx, tx, o.ID)
	if err != nil {
		return err
	}
	if n > 0 {
		pools := "node pools"
		if n == 1 {
			pools = "node pool"
		}
		return &Error{Status: http.StatusConflict, Code: "CONFLICT", Message: fmt.Sprintf("the cluster has %d %s: delete them first", n, pools)}
	}
	b, err := body.Stored(o.Name, o.ClusterID, o.Spec)
	if err != nil {
		return err
	}
	if b.Spec.Protected() {
		return &Error{Status: http.StatusConflict, Code: "CONFLICT", Message: "the cluster is protected (deletionProtection, " +
			"true unless set false): update it with deletionProtection: false first, then delete it"}
	}
	return nil
}
