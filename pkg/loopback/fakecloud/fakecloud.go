// Package fakecloud is what the loopback cloud APIs of the tests (pkg/loopback/fakedo,
// pkg/loopback/fakecivo) share: a server on 127.0.0.1 only, with a bounded lifetime, that records
// every request, checks the token, and answers the faults a test asks for (429 with Retry-After,
// 500 or 503, a slow answer, a 422 worded as the API words it, a 404 right after a create) before
// the cloud's own handler sees the request, or after it, in place of its answer (a 500 for a
// create the cloud carried out).
package fakecloud

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Lifetime bounds how long a server answers: a test that hangs does not keep a listener open.
const Lifetime = 30 * time.Minute

// Request is one request received, and the status it was answered with.
type Request struct {
	Method, Path, Query, Body string
	Status                    int
	// UserAgent tells which client sent it: clusterplane's own (cloudapi.UserAgent), or a
	// provider's.
	UserAgent string
}

// Fault is an answer a test asks for, given instead of the cloud's own to the next Times requests
// that match Method and Path.
type Fault struct {
	// Method matches the request's method; "" matches any.
	Method string
	// Path matches a request whose path starts with it; "" matches any.
	Path string
	// Status is the status to answer with; 0 lets the cloud answer (after Delay).
	Status int
	// Message is the error's text, in the cloud's error body.
	Message string
	// RetryAfter, with a 429, is sent as the Retry-After header, in whole seconds.
	RetryAfter time.Duration
	// Delay holds the answer back this long.
	Delay time.Duration
	// Times is how many matching requests the fault answers; at least one.
	Times int
	// For, when set, has the fault answer every matching request for this long after it was
	// injected, however many, as a rate limit does (Times is then ignored); a 429's Retry-After is
	// then the time left, rounded up to a second.
	For time.Duration
	// After, when set, arms the fault only once a request with this method has been answered
	// successfully after the fault was injected ("POST": a read that fails right after a create).
	After string
	// Commit has the cloud carry the request out (a create creates) before the fault's Status
	// replaces its answer: a cloud that committed a change and then failed to say so, which a
	// client that retries takes for a request never carried out.
	Commit bool
	// Hold, with Commit, holds the answer back this long after the cloud carried the request
	// out (outside the cloud's lock, so that other requests go on): a test kills the client while
	// it waits, as a process killed between a create and its record.
	Hold time.Duration

	// afterSeen is how many such answers there were when the fault was injected.
	afterSeen int
	// until is when a fault of For ends.
	until time.Time
}

// Cloud is the part of a fake that differs between clouds.
type Cloud interface {
	// Authorized tells whether the request carries the fake's token, as the cloud's client sends it.
	Authorized(r *http.Request) bool
	// Error writes an error answer as the cloud words it.
	Error(w http.ResponseWriter, status int, message string)
	// Serve answers an authorized request whose body was read; it runs under the server's lock.
	Serve(w http.ResponseWriter, r *http.Request, body []byte)
}

// Server is a loopback HTTP server in front of a Cloud.
type Server struct {
	srv   *httptest.Server
	cloud Cloud

	// Mu guards the requests, the faults and the cloud's state: Serve runs with it held, and a
	// fake's own methods take it to read or change the cloud behind its clients' backs.
	Mu       sync.Mutex
	requests []Request
	faults   []*Fault
	// answered counts the successful answers by method.
	answered map[string]int
	// onChange, when set, runs after every successful request that may have changed the cloud
	// (any method but GET and HEAD), outside Mu, so that it may read the cloud: the sandbox saves
	// its clouds there.
	onChange func()
	// onRequest, when set, is told of every request once it is answered, under Mu: a bench
	// (tools/fakeclouds -requests) counts the requests each command costs and when they came.
	onRequest func(Request)
}

// TB is what Start needs of its caller: a test (testing.TB), or a command that serves a fake
// cloud on its own (tools/fakeclouds).
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Start serves cloud on 127.0.0.1 until the test ends or Lifetime passes.
func Start(t TB, cloud Cloud) *Server {
	t.Helper()
	return StartFor(t, cloud, 0, Lifetime)
}

// StartFor serves cloud on 127.0.0.1 until the caller cleans up or lifetime passes; a lifetime
// of 0 has no bound, for the sandbox, which serves until it is stopped. It listens on port when
// that is free (the sandbox keeps its URLs across restarts), else on any port.
func StartFor(t TB, cloud Cloud, port int, lifetime time.Duration) *Server {
	t.Helper()
	s := &Server{cloud: cloud, answered: map[string]int{}}
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil && port != 0 {
		l, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatalf("listen on loopback: %v", err)
	}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.srv.Listener.Close()
	s.srv.Listener = l
	s.srv.Start()
	stop := func() bool { return false }
	if lifetime > 0 {
		stop = time.AfterFunc(lifetime, s.srv.Close).Stop
	}
	t.Cleanup(func() {
		stop()
		s.srv.Close()
	})
	return s
}

// OnChange sets what runs after each successful request that may have changed the cloud.
func (s *Server) OnChange(f func()) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	s.onChange = f
}

// OnRequest sets what is told of every request once it is answered, with the time it came. It
// runs with Mu held, so it must not call the server back; it should be quick, as the next
// request waits for it.
func (s *Server) OnRequest(f func(at time.Time, r Request)) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	if f == nil {
		s.onRequest = nil
		return
	}
	s.onRequest = func(r Request) { f(time.Now(), r) }
}

// URL is the API's base URL.
func (s *Server) URL() string { return s.srv.URL }

// Close stops the API: later requests find nothing listening.
func (s *Server) Close() { s.srv.Close() }

// Inject adds a fault; faults are tried in the order they were added.
func (s *Server) Inject(f Fault) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	if f.Times < 1 {
		f.Times = 1
	}
	f.afterSeen = s.answered[f.After]
	if f.For > 0 {
		f.until = time.Now().Add(f.For)
	}
	s.faults = append(s.faults, &f)
}

// Requests are the requests received with method ("" for all), in order.
func (s *Server) Requests(method string) []Request {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	var out []Request
	for _, r := range s.requests {
		if method == "" || r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// Reset forgets the requests received.
func (s *Server) Reset() {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	s.requests = nil
}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (s *Server) serve(rw http.ResponseWriter, r *http.Request) {
	w := &statusWriter{ResponseWriter: rw}
	onChange := s.answer(w, r)
	if onChange != nil && r.Method != http.MethodGet && r.Method != http.MethodHead &&
		w.status >= 200 && w.status < 300 {
		onChange()
	}
}

// answer answers r and returns the change hook as it was while answering.
func (s *Server) answer(w *statusWriter, r *http.Request) func() {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	fault := s.fault(r)
	if fault != nil && fault.Delay > 0 {
		select {
		case <-time.After(fault.Delay):
		case <-r.Context().Done():
			return nil
		}
	}
	if fault != nil && fault.Commit && fault.Hold > 0 {
		s.Mu.Lock()
		if s.cloud.Authorized(r) {
			s.cloud.Serve(httptest.NewRecorder(), r, body)
		}
		s.Mu.Unlock()
		select {
		case <-time.After(fault.Hold):
		case <-r.Context().Done():
		}
		// Carried out already: what is left is the fault's answer.
		held := *fault
		held.Commit = false
		fault = &held
	}
	s.Mu.Lock()
	defer s.Mu.Unlock()
	onChange := s.onChange
	defer func() {
		req := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: string(body), Status: w.status,
			UserAgent: r.UserAgent()}
		s.requests = append(s.requests, req)
		if s.onRequest != nil {
			s.onRequest(req)
		}
		if w.status >= 200 && w.status < 300 {
			s.answered[r.Method]++
		}
	}()
	w.Header().Set("Content-Type", "application/json")
	if !s.cloud.Authorized(r) {
		s.cloud.Error(w, http.StatusUnauthorized, "Unable to authenticate you")
		return nil
	}
	if fault != nil && fault.Status != 0 {
		if fault.Commit {
			// The cloud's own answer goes nowhere; the request is recorded with the fault's status.
			s.cloud.Serve(httptest.NewRecorder(), r, body)
		}
		if fault.Status == http.StatusTooManyRequests && fault.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int(fault.RetryAfter.Seconds())))
		}
		message := fault.Message
		if message == "" {
			message = http.StatusText(fault.Status)
		}
		s.cloud.Error(w, fault.Status, message)
		return nil
	}
	s.cloud.Serve(w, r, body)
	return onChange
}

// fault takes one use of the first armed fault that matches r.
func (s *Server) fault(r *http.Request) *Fault {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	return s.faultLocked(r)
}

// faultLocked is fault under the server's lock; faults of For that have ended are dropped.
func (s *Server) faultLocked(r *http.Request) *Fault {
	for i, f := range s.faults {
		if f.For > 0 && !time.Now().Before(f.until) {
			s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			return s.faultLocked(r)
		}
		if (f.Method == "" || f.Method == r.Method) && strings.HasPrefix(r.URL.Path, f.Path) &&
			(f.After == "" || s.answered[f.After] > f.afterSeen) {
			if f.For > 0 {
				answer := *f
				answer.RetryAfter = (time.Until(f.until) + time.Second - 1).Truncate(time.Second)
				return &answer
			}
			f.Times--
			if f.Times == 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
			return f
		}
	}
	return nil
}
