package pools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/civo/civogo"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	corev1 "k8s.io/api/core/v1"
)

// DefaultWaitTimeout bounds how long Create, Update and Delete wait for the pool.
const DefaultWaitTimeout = 20 * time.Minute

// DefaultRequestTimeout bounds one request to the API: an answer takes well under a second,
// and a connection that hangs must fail the request rather than the whole wait.
const DefaultRequestTimeout = time.Minute

// userAgent names the client to Civo.
const userAgent = "clusterplane-civopool/v1"

// transport is shared by every Client, so that the Clients made one per operation reuse
// connections rather than each opening (and leaving open) its own. civogo v0.3.89 made a new
// Transport per request and took no context, which is why the requests are made here.
var transport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = http.ProxyFromEnvironment
	return t
}()

// Client manages node pools in one Civo region through one API URL and token.
// It is safe for concurrent use.
type Client struct {
	token, apiURL, region string
	http                  *http.Client
	// requests counts the requests sent, retries included.
	requests atomic.Int64

	requestTimeout time.Duration

	pollInterval time.Duration
	waitTimeout  time.Duration
	attempts     int
	backoff      time.Duration
	maxBackoff   time.Duration
}

// WithRequestTimeout sets how long one request may take, its answer read (default
// DefaultRequestTimeout).
func WithRequestTimeout(d time.Duration) Option { return func(c *Client) { c.requestTimeout = d } }

// Option configures a Client.
type Option func(*Client)

// WithPollInterval sets how often a wait reads the pool (default 10s, as the
// terraform provider does).
func WithPollInterval(d time.Duration) Option { return func(c *Client) { c.pollInterval = d } }

// WithWaitTimeout sets how long Create, Update and Delete wait for the pool before
// failing with ErrWaitTimeout (default DefaultWaitTimeout).
func WithWaitTimeout(d time.Duration) Option { return func(c *Client) { c.waitTimeout = d } }

// WithRetries sets how often a request answered 429 or 5xx is sent in all (default 5),
// the delay before the first retry (default 1s), doubled after each retry up to max
// (default 30s).
func WithRetries(attempts int, first, max time.Duration) Option {
	return func(c *Client) { c.attempts, c.backoff, c.maxBackoff = attempts, first, max }
}

// New returns a Client for the Civo API at apiURL (https://api.civo.com in production)
// in region, authenticated with token.
func New(token, apiURL, region string, opts ...Option) (*Client, error) {
	c := &Client{
		token: token, apiURL: strings.TrimSuffix(apiURL, "/"), region: region,
		http:           &http.Client{Transport: transport},
		requestTimeout: DefaultRequestTimeout,
		pollInterval:   10 * time.Second,
		waitTimeout:    DefaultWaitTimeout,
		attempts:       5,
		backoff:        time.Second,
		maxBackoff:     30 * time.Second,
	}
	for _, o := range opts {
		o(c)
	}
	if token == "" {
		return nil, errors.New("civo node pool client: the API token is empty")
	}
	if region == "" {
		return nil, errors.New("civo node pool client: the region is empty")
	}
	if u, err := url.Parse(apiURL); err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("civo node pool client: the API URL %q is not an absolute URL", apiURL)
	}
	if c.attempts < 1 {
		c.attempts = 1
	}
	if c.pollInterval <= 0 || c.waitTimeout <= 0 || c.requestTimeout <= 0 {
		return nil, errors.New("civo node pool client: the poll interval, the wait timeout and the request timeout must be positive")
	}
	return c, nil
}

// Create creates the pool and waits until it has spec.Count running nodes.
func (c *Client) Create(ctx context.Context, spec Spec) (State, error) {
	if err := c.Post(ctx, spec); err != nil {
		return State{}, err
	}
	return c.waitReady(ctx, "create", spec)
}

// Post sends the pool's create and returns without waiting for its nodes. A create answered 5xx
// or not at all is not sent again (a 429 is): Civo may have made the pool, and a caller that
// finds its pools by a label finds it on its next read.
func (c *Client) Post(ctx context.Context, spec Spec) error {
	if err := c.check(spec); err != nil {
		return c.fail("create", spec.ClusterID, spec.ID, err)
	}
	body := &civogo.KubernetesClusterPoolConfig{
		Region:           c.region,
		ID:               spec.ID,
		Count:            spec.Count,
		Size:             spec.Size,
		Labels:           spec.Labels,
		Taints:           toCivoTaints(spec.Taints), // never nil: "taints": [] rather than null
		PublicIPNodePool: spec.PublicIP,
	}
	if _, err := c.send(ctx, http.MethodPost, poolsPath(spec.ClusterID), body); err != nil {
		return c.fail("create", spec.ClusterID, spec.ID, err)
	}
	return nil
}

// Resize sets the pool's node count and returns without waiting for its nodes; nothing else of
// the pool is sent, so nothing else changes.
func (c *Client) Resize(ctx context.Context, clusterID, id string, count int) error {
	if _, err := c.send(ctx, http.MethodPut, poolPath(clusterID, id), poolUpdate{Count: &count, Region: c.region}); err != nil {
		return c.fail("resize", clusterID, id, err)
	}
	return nil
}

// DeleteInstance deletes one instance of the pool, which lowers the pool's count by one: Civo's
// cluster autoscaler removes nodes by this call alone (kubernetes/autoscaler,
// cluster-autoscaler/cloudprovider/civo/civo_node_group.go, DeleteNodes). An instance already
// gone is an error that IsNotFound recognises.
func (c *Client) DeleteInstance(ctx context.Context, clusterID, id, instanceID string) error {
	if _, err := c.send(ctx, http.MethodDelete, poolPath(clusterID, id)+"/instances/"+url.PathEscape(instanceID), nil); err != nil {
		return c.fail("delete instance "+c.scrub(instanceID), clusterID, id, err)
	}
	return nil
}

// Remove sends the pool's delete and returns without waiting: a pool already gone is an error
// that IsNotFound recognises.
func (c *Client) Remove(ctx context.Context, clusterID, id string) error {
	if _, err := c.send(ctx, http.MethodDelete, poolPath(clusterID, id), nil); err != nil {
		return c.fail("delete", clusterID, id, err)
	}
	return nil
}

// Requests is how many requests went to Civo, retries included.
func (c *Client) Requests() int { return int(c.requests.Load()) }

// Get reads the pool. found is false, with a nil error, when Civo answers 404.
func (c *Client) Get(ctx context.Context, clusterID, id string) (State, bool, error) {
	p, err := c.get(ctx, clusterID, id)
	if IsNotFound(err) {
		return State{}, false, nil
	}
	if err != nil {
		return State{}, false, c.fail("get", clusterID, id, err)
	}
	return c.state(clusterID, id, p), true, nil
}

// List reads every pool of the cluster (Civo answers them in one list, unpaged).
func (c *Client) List(ctx context.Context, clusterID string) ([]State, error) {
	body, err := c.send(ctx, http.MethodGet, poolsPath(clusterID), nil)
	if err != nil {
		return nil, c.fail("list", clusterID, "", err)
	}
	var pools []civogo.KubernetesPool
	if err := json.Unmarshal(body, &pools); err != nil {
		return nil, c.fail("list", clusterID, "", fmt.Errorf("decoding the pools: %v", err))
	}
	out := make([]State, 0, len(pools))
	for i := range pools {
		out = append(out, c.state(clusterID, pools[i].ID, &pools[i]))
	}
	return out, nil
}

// poolUpdate is the PUT body. It is not civogo's KubernetesClusterPoolUpdateConfig,
// whose `json:"labels,omitempty"` map drops an empty label set, so labels could never
// be cleared, and whose `json:"taints"` slice sends "taints": null when taints did not
// change. Here nil pointers are left out ("not changing") and pointers to empty values
// are sent ("labels": {}, "taints": [] clear them); terraform-provider-civo v1.2.6 fixed
// its update the same way (kubernetesClusterPoolUpdatePayload).
type poolUpdate struct {
	Count  *int               `json:"count,omitempty"`
	Labels *map[string]string `json:"labels,omitempty"`
	Taints *[]corev1.Taint    `json:"taints,omitempty"`
	Region string             `json:"region,omitempty"`
}

// Update changes the pool from old to new in place, sending only what changed: the
// count, the full label set (an explicit "labels": {} to clear them all), the full taint
// list (an explicit "taints": [] to clear them all). It then waits until the pool has
// new.Count running nodes. A change Civo cannot make in place (ReplaceFields) is an
// error, and nothing is sent. When nothing changed it only reads the pool.
func (c *Client) Update(ctx context.Context, old, new Spec) (State, error) {
	if err := c.check(new); err != nil {
		return State{}, c.fail("update", new.ClusterID, new.ID, err)
	}
	if fields := ReplaceFields(c.normal(old), c.normal(new)); len(fields) > 0 {
		return State{}, c.fail("update", new.ClusterID, new.ID,
			fmt.Errorf("%s cannot change in place; the pool must be replaced", strings.Join(fields, ", ")))
	}
	body := poolUpdate{Region: c.region}
	changed := false
	if old.Count != new.Count {
		n := new.Count
		body.Count = &n
		changed = true
	}
	if !maps.Equal(UserLabels(old.Labels), UserLabels(new.Labels)) {
		labels := map[string]string{}
		maps.Copy(labels, new.Labels)
		body.Labels = &labels
		changed = true
	}
	if !taintsEqual(old.Taints, new.Taints) {
		taints := toCivoTaints(new.Taints)
		body.Taints = &taints
		changed = true
	}
	if !changed {
		st, found, err := c.Get(ctx, new.ClusterID, new.ID)
		if err != nil {
			return State{}, err
		}
		if !found {
			return State{}, c.fail("update", new.ClusterID, new.ID, errors.New("the pool does not exist"))
		}
		return st, nil
	}
	path := poolPath(new.ClusterID, new.ID)
	if _, err := c.send(ctx, http.MethodPut, path, body); err != nil {
		return State{}, c.fail("update", new.ClusterID, new.ID, err)
	}
	return c.waitReady(ctx, "update", new)
}

// Delete deletes the pool and waits until Civo no longer finds it. A pool that is
// already gone (404) is not an error.
func (c *Client) Delete(ctx context.Context, clusterID, id string) error {
	err := c.Remove(ctx, clusterID, id)
	if IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return c.wait(ctx, "delete", clusterID, id, func(p *civogo.KubernetesPool) (bool, string) {
		if p == nil {
			return true, ""
		}
		return false, fmt.Sprintf("the pool still exists with %d instances", len(p.Instances))
	})
}

// waitReady waits until the pool reports spec.Count nodes, all ACTIVE.
func (c *Client) waitReady(ctx context.Context, op string, spec Spec) (State, error) {
	var last *civogo.KubernetesPool
	err := c.wait(ctx, op, spec.ClusterID, spec.ID, func(p *civogo.KubernetesPool) (bool, string) {
		last = p
		return ready(p, spec.Count)
	})
	if err != nil {
		return State{}, err
	}
	return c.state(spec.ClusterID, spec.ID, last), nil
}

// ready reports whether the pool has want nodes and all of them are running, and if not,
// why not. It reads the pool's own instances; when Civo lists only instance names
// (no statuses), the names are counted instead.
func ready(p *civogo.KubernetesPool, want int) (bool, string) {
	if p == nil {
		return false, "the pool is not found yet"
	}
	if p.Count != want {
		return false, fmt.Sprintf("count is %d, want %d", p.Count, want)
	}
	if len(p.Instances) == 0 {
		if len(p.InstanceNames) == want {
			return true, ""
		}
		return false, fmt.Sprintf("%d of %d instances exist", len(p.InstanceNames), want)
	}
	active := 0
	for _, in := range p.Instances {
		if in.Status == ReadyStatus {
			active++
		}
	}
	if len(p.Instances) != want || active != want {
		return false, fmt.Sprintf("%d of %d instances %s (%d listed)", active, want, ReadyStatus, len(p.Instances))
	}
	return true, ""
}

// wait reads the pool every poll interval until done says so, the wait timeout passes
// (ErrWaitTimeout) or ctx ends. done gets nil when Civo answers 404.
func (c *Client) wait(ctx context.Context, op, clusterID, id string, done func(*civogo.KubernetesPool) (bool, string)) error {
	deadline := time.Now().Add(c.waitTimeout)
	for {
		p, err := c.get(ctx, clusterID, id)
		if IsNotFound(err) {
			p, err = nil, nil
		}
		if err != nil {
			return c.fail(op, clusterID, id, err)
		}
		ok, why := done(p)
		if ok {
			return nil
		}
		if !time.Now().Add(c.pollInterval).Before(deadline) {
			return c.fail(op, clusterID, id, fmt.Errorf("%w %s for the pool: %s", ErrWaitTimeout, c.waitTimeout, why))
		}
		if err := cloudapi.Sleep(ctx, c.pollInterval); err != nil {
			return c.fail(op, clusterID, id, fmt.Errorf("stopped waiting (%s): %w", why, err))
		}
	}
}

// get reads the pool once (with retries); a 404 comes back as an *APIError.
func (c *Client) get(ctx context.Context, clusterID, id string) (*civogo.KubernetesPool, error) {
	path := poolPath(clusterID, id)
	body, err := c.send(ctx, http.MethodGet, path, nil)
	if err != nil {
		return nil, err
	}
	p := &civogo.KubernetesPool{}
	if err := json.Unmarshal(body, p); err != nil {
		return nil, fmt.Errorf("decoding the pool: %v", err)
	}
	return p, nil
}

// send makes one API call, sending it again after a 429 or 5xx answer with exponential
// backoff, at most c.attempts times in all; a POST only after a 429, since a 5xx may come after
// Civo made the pool. Other answers of 300 and above are final.
// It returns when ctx ends even while a request is in flight: the request is cancelled
// and its connection closed, nothing of it runs on. Every error it returns has the token
// scrubbed from its text.
func (c *Client) send(ctx context.Context, method, path string, body any) ([]byte, error) {
	delay := c.backoff
	for attempt := 1; ; attempt++ {
		answer, err := c.once(ctx, method, path, body)
		if err == nil {
			return answer, nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		var httpErr *statusError
		if !errors.As(err, &httpErr) {
			return nil, errors.New(c.scrub(err.Error()))
		}
		apiErr := &APIError{Status: httpErr.code, Body: shorten(c.scrub(httpErr.body)), Attempts: attempt}
		if !retryable(method, httpErr.code) || attempt >= c.attempts {
			return nil, apiErr
		}
		if err := cloudapi.Sleep(ctx, delay); err != nil {
			return nil, fmt.Errorf("%w (while retrying after %v)", err, apiErr)
		}
		delay = min(2*delay, c.maxBackoff)
	}
}

// Read GETs path (with its query) from Civo's API, with the client's timeout, retries and
// cancellation: what other look-ups of the account (its clusters, for the create guard) share
// with the pool's own calls.
func (c *Client) Read(ctx context.Context, path string) ([]byte, error) {
	return c.send(ctx, http.MethodGet, path, nil)
}

// statusError is an answer of 300 or above, before it is scrubbed into an *APIError.
type statusError struct {
	code int
	body string
}

func (e *statusError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.code, e.body) }

// maxAnswer bounds the body of an answer read: a pool is a few KiB, and a broken proxy
// must not fill memory.
const maxAnswer = 16 << 20

// once sends one request as civogo would (its headers, the region as a query parameter of
// GET and DELETE) but through the Client's shared HTTP client, bounded by ctx and the
// request timeout.
func (c *Client) once(parent context.Context, method, path string, body any) ([]byte, error) {
	if err := parent.Err(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(parent, c.requestTimeout)
	defer cancel()
	var payload io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("encoding the request: %v", err)
		}
		payload = bytes.NewReader(data)
	}
	u := c.apiURL + path
	if method == http.MethodGet || method == http.MethodDelete {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		u += sep + url.Values{"region": {c.region}}.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, payload)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Authorization", "bearer "+c.token)
	c.requests.Add(1)
	start := time.Now()
	resp, err := c.http.Do(req)
	status := 0
	if err == nil {
		status = resp.StatusCode
	}
	bare, _, _ := strings.Cut(path, "?")
	cloudapi.Notify(ctx, cloudapi.Request{Cloud: "civo", Method: method, Path: bare, Status: status, Start: start, Duration: time.Since(start)})
	if err != nil {
		if parent.Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s %s: no answer within %s", method, path, c.requestTimeout)
		}
		// http's error quotes the URL, which may carry credentials: its cause alone is kept.
		var u *url.Error
		if errors.As(err, &u) {
			return nil, fmt.Errorf("%s %s: no answer: %w", method, path, u.Err)
		}
		return nil, err
	}
	defer func() {
		// Whatever is left of the body is read (a little of it) so that the connection
		// can serve the next request, then closed.
		_, _ = io.CopyN(io.Discard, resp.Body, 64<<10)
		resp.Body.Close()
	}()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the answer: %v", method, path, err)
	}
	if len(answer) > maxAnswer {
		return nil, fmt.Errorf("%s %s: the answer is larger than %d MiB", method, path, maxAnswer>>20)
	}
	if resp.StatusCode >= 300 {
		return nil, &statusError{code: resp.StatusCode, body: string(answer)}
	}
	return answer, nil
}

// retryable tells whether an answer of status to a request of method may be asked again: a 429
// was turned away unread, but a POST answered 5xx may have been carried out, and sent again it
// would be refused as a pool that exists or make a second thing.
func retryable(method string, status int) bool {
	return status == 429 || status >= 500 && method != http.MethodPost
}

// fail wraps err as an *Error naming the pool and the cluster, with the token scrubbed.
func (c *Client) fail(op, clusterID, id string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Op: op, ClusterID: c.scrub(clusterID), PoolID: c.scrub(id), Err: scrubbed{err, c.scrub(err.Error())}}
}

// scrubbed keeps the chain of an error for errors.Is/As while its text is the scrubbed one.
type scrubbed struct {
	err error
	msg string
}

func (s scrubbed) Error() string { return s.msg }
func (s scrubbed) Unwrap() error { return s.err }

func (c *Client) scrub(s string) string {
	if c.token == "" {
		return s
	}
	return strings.ReplaceAll(s, c.token, "[redacted]")
}

// check validates the spec and its region against the Client's.
func (c *Client) check(s Spec) error {
	if err := Validate(s); err != nil {
		return err
	}
	if s.Region != "" && s.Region != c.region {
		return fmt.Errorf("region %q is not the client's region %q", s.Region, c.region)
	}
	return nil
}

// normal fills an empty Region with the Client's, so that "" and the same region compare equal.
func (c *Client) normal(s Spec) Spec {
	if s.Region == "" {
		s.Region = c.region
	}
	return s
}

func (c *Client) state(clusterID, id string, p *civogo.KubernetesPool) State {
	st := State{Spec: Spec{
		ClusterID: clusterID,
		Region:    c.region,
		ID:        id,
		Size:      p.Size,
		Count:     p.Count,
		Labels:    maps.Clone(p.Labels),
		PublicIP:  p.PublicIPNodePool,
	}}
	if p.ID != "" {
		st.ID = p.ID
	}
	for _, t := range p.Taints {
		st.Taints = append(st.Taints, Taint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)})
	}
	st.InstanceNames = append(st.InstanceNames, p.InstanceNames...)
	for _, in := range p.Instances {
		name := in.Hostname
		if name == "" {
			name = in.ID
		}
		st.Instances = append(st.Instances, Instance{ID: in.ID, Name: name, Status: in.Status})
	}
	return st
}

func toCivoTaints(ts []Taint) []corev1.Taint {
	out := make([]corev1.Taint, 0, len(ts))
	for _, t := range ts {
		out = append(out, corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)})
	}
	return out
}

func poolsPath(clusterID string) string {
	return fmt.Sprintf("/v2/kubernetes/clusters/%s/pools", url.PathEscape(clusterID))
}

func poolPath(clusterID, id string) string {
	return poolsPath(clusterID) + "/" + url.PathEscape(id)
}

func shorten(s string) string {
	s = strings.TrimSpace(s)
	const max = 512
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
