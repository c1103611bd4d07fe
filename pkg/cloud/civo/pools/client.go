package pools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strings"
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

// DefaultRetry is the retry rule of a Client given none: a 429 or a 5xx (a read's lost answer as
// a 5xx) asked again up to four more times, after 1s, 2s, 4s and 8s.
var DefaultRetry = cloudapi.Backoff(4, time.Second)

// Client manages node pools in one Civo region through one API URL and token.
// It is safe for concurrent use.
type Client struct {
	token, region string
	// api sends every request: its transport, its retry rule, its count and its observers
	// (cloudapi.Observe) are the ones of every other cloud request of the process.
	api *cloudapi.Client

	requestTimeout time.Duration
	retry          cloudapi.Retry
	shared         *cloudapi.Client

	pollInterval time.Duration
	waitTimeout  time.Duration
}

// Option configures a Client.
type Option func(*Client)

// WithRequestTimeout sets how long one request may take, its answer read (default
// DefaultRequestTimeout).
func WithRequestTimeout(d time.Duration) Option { return func(c *Client) { c.requestTimeout = d } }

// WithPollInterval sets how often a wait reads the pool (default 10s, as the
// terraform provider does).
func WithPollInterval(d time.Duration) Option { return func(c *Client) { c.pollInterval = d } }

// WithWaitTimeout sets how long Create, Update and Delete wait for the pool before
// failing with ErrWaitTimeout (default DefaultWaitTimeout).
func WithWaitTimeout(d time.Duration) Option { return func(c *Client) { c.waitTimeout = d } }

// WithRetry sets which refused requests are asked again (default DefaultRetry). Whatever the rule,
// cloudapi never sends a create (a POST) again after a 5xx or a lost answer.
func WithRetry(r cloudapi.Retry) Option { return func(c *Client) { c.retry = r } }

// WithAPI sends the Client's requests through api, a client of the same Civo API and token that
// the caller sends its other Civo requests through (civo.Client.API): one retry rule, one timeout
// and one count for all of them. WithRetry and WithRequestTimeout then do not apply.
func WithAPI(api *cloudapi.Client) Option { return func(c *Client) { c.shared = api } }

// New returns a Client for the Civo API at apiURL (https://api.civo.com in production)
// in region, authenticated with token.
func New(token, apiURL, region string, opts ...Option) (*Client, error) {
	c := &Client{
		token: token, region: region,
		requestTimeout: DefaultRequestTimeout,
		retry:          DefaultRetry,
		pollInterval:   10 * time.Second,
		waitTimeout:    DefaultWaitTimeout,
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
	if c.pollInterval <= 0 || c.waitTimeout <= 0 || c.requestTimeout <= 0 {
		return nil, errors.New("civo node pool client: the poll interval, the wait timeout and the request timeout must be positive")
	}
	c.api = c.shared
	if c.api == nil {
		// "bearer", as civogo and pkg/cloud/civo spell the scheme. cloudapi's client without an
		// *http.Client of its own sends through net/http's default transport, so the Clients made
		// one per operation reuse its connections.
		c.api = cloudapi.New(apiURL, "bearer "+token, cloudapi.Options{Timeout: c.requestTimeout, Retry: c.retry, Cloud: "civo"})
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

// Requests is how many requests went to Civo through the Client's cloudapi client, retries
// included (with WithAPI, those of the caller's other Civo requests too).
func (c *Client) Requests() int { return c.api.Requests() }

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

// get reads the pool once (with retries); a 404 comes back as an error IsNotFound recognises.
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

// send makes one API call through cloudapi, whose retry rule asks a refused request again (a
// create after a 429 only: cloudapi never sends a POST again after a 5xx or a lost answer, since
// Civo may have made the pool). GET and DELETE name the region in their query, POST and PUT in
// their body, as civogo does. It returns when ctx ends even while a request is in flight. Its
// errors are cloudapi's: they never quote the token or the URL.
func (c *Client) send(ctx context.Context, method, path string, body any) ([]byte, error) {
	if method == http.MethodGet || method == http.MethodDelete {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		path += sep + url.Values{"region": {c.region}}.Encode()
	}
	var answer []byte
	if err := c.api.Do(ctx, method, path, body, &answer); err != nil {
		return nil, err
	}
	return answer, nil
}

// Read GETs path (with its query) from Civo's API, with the client's timeout, retries and
// cancellation: what other look-ups of the account (its clusters, for the create guard) share
// with the pool's own calls.
func (c *Client) Read(ctx context.Context, path string) ([]byte, error) {
	return c.send(ctx, http.MethodGet, path, nil)
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
