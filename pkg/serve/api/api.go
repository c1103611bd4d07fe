// Package api is `clusterplane serve`'s HTTP API: the seed's clusters and node pools routes over
// the store, each request authenticated (package auth) and allowed by its role, each body checked
// by the same reader and rules as `clusterplane validate` (package body) before it is saved, and
// every update and delete conditional on the resource version the client read (If-Match).
package api

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/deploy"
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
	Policy *policy.Policy
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
	mux := http.NewServeMux()
	mux.HandleFunc("GET /openapi.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(OpenAPI())
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	for _, rt := range Routes {
		mux.Handle(rt.Method+" "+rt.Path, s.guard(rt.Permission, rt.handler(s)))
	}
	return mux
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
			s.fail(w, &Error{Status: http.StatusUnauthorized, Code: "UNAUTHENTICATED", Message: "a valid bearer token is required"})
			return
		case err != nil:
			s.fail(w, err)
			return
		case !p.Role.Can(need):
			role := string(p.Role)
			if role == "" {
				role = "no role"
			}
			s.fail(w, &Error{Status: http.StatusForbidden, Code: "FORBIDDEN",
				Message: fmt.Sprintf("%s (%s) may not %s", p.Subject, role, need)})
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		if err := h(w, r, p); err != nil {
			s.fail(w, err)
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
func (s *Server) fail(w http.ResponseWriter, err error) {
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
			s.Log.Error("request failed", "error", err.Error())
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
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// writeObject writes an object with its resource version as the ETag, which If-Match takes.
func writeObject(w http.ResponseWriter, status int, o store.Object) {
	w.Header().Set("ETag", strconv.Quote(o.ResourceVersion))
	writeJSON(w, status, o)
}

// ifMatch is the resource version a conditional write names. A write without one is refused
// (428): two clients scaling one pool must not both win, the last silently.
func ifMatch(r *http.Request) (string, error) {
	v := strings.TrimSpace(r.Header.Get("If-Match"))
	if v == "" {
		return "", &Error{Status: http.StatusPreconditionRequired, Code: "PRECONDITION_REQUIRED",
			Message: "updates and deletes are conditional: send If-Match with the resource_version you read"}
	}
	v = strings.TrimPrefix(v, "W/")
	if uq, err := strconv.Unquote(v); err == nil {
		v = uq
	}
	return v, nil
}

// readBody reads and checks a body's JSON.
func readBody(r *http.Request) (body.Body, error) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return body.Body{}, err
	}
	return body.Parse(data)
}

// check reads the manifest of a body as `clusterplane validate` reads a file (every problem at
// once, named as the body wrote it) and evaluates the policy over it.
func (s *Server) check(ctx context.Context, platform string, pool bool, manifest []byte) error {
	kindName := body.KindName(platform, pool)
	k, ok := s.Kinds.ByName(kindName)
	if !ok {
		return fmt.Errorf("no kind %s", kindName)
	}
	const file = "body"
	t, err := deploy.Read(k, file, manifest, "")
	if err != nil {
		return body.Problems(err, platform, pool)
	}
	if s.Policy == nil {
		return nil
	}
	results, err := s.Policy.Evaluate(policy.Input{File: file, Data: manifest, Manifest: t.Input})
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
	if o.Kind != store.Cluster {
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
