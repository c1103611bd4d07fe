// Package kube is a small client of a Kubernetes API server: GET, paged LIST, PATCH and POST of
// JSON, over a kubeconfig held in memory. It is what clusterplane needs to drain a pool and scan
// a cluster's objects, without client-go's generated clientset, which more than doubled the
// binary for a handful of calls.
//
// The kubeconfig is parsed from bytes and never written anywhere; no error quotes it.
package kube

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"

	"github.com/pkg/errors"
	"golang.org/x/time/rate"
	"sigs.k8s.io/yaml"
)

// Patch content types the API server takes.
const (
	MergePatch          = "application/merge-patch+json"
	StrategicMergePatch = "application/strategic-merge-patch+json"
)

// kubeconfig is the part of a kubeconfig a client needs: the current context's server, its
// certificate authority, and the user's token or client certificate. Inline data only: the
// kubeconfigs the clouds serve carry everything inline, and nothing here reads or writes a file.
type kubeconfig struct {
	CurrentContext string `json:"current-context"`
	Clusters       []struct {
		Name    string `json:"name"`
		Cluster struct {
			Server   string `json:"server"`
			CAData   string `json:"certificate-authority-data"`
			Insecure bool   `json:"insecure-skip-tls-verify"`
		} `json:"cluster"`
	} `json:"clusters"`
	Contexts []struct {
		Name    string `json:"name"`
		Context struct {
			Cluster string `json:"cluster"`
			User    string `json:"user"`
		} `json:"context"`
	} `json:"contexts"`
	Users []struct {
		Name string `json:"name"`
		User struct {
			Token    string `json:"token"`
			CertData string `json:"client-certificate-data"`
			KeyData  string `json:"client-key-data"`
		} `json:"user"`
	} `json:"users"`
}

// Client talks to one cluster's API server.
type Client struct {
	server string
	token  string
	http   *http.Client
	// limit spaces the requests as client-go's defaults did for kubectl's drain (5 a second,
	// bursts of 10): a drain polls every pod it evicted each second.
	limit *rate.Limiter
}

// New is a client of the kubeconfig's current context (its only context when it names none).
// Its errors never quote the kubeconfig: it holds credentials.
func New(data []byte) (*Client, error) {
	var kc kubeconfig
	if err := yaml.Unmarshal(data, &kc); err != nil {
		return nil, errors.New("the cluster's kubeconfig is not YAML")
	}
	ctxName := kc.CurrentContext
	if ctxName == "" && len(kc.Contexts) == 1 {
		ctxName = kc.Contexts[0].Name
	}
	var clusterName, userName string
	for _, c := range kc.Contexts {
		if c.Name == ctxName {
			clusterName, userName = c.Context.Cluster, c.Context.User
		}
	}
	c := &Client{}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	found := false
	for _, cl := range kc.Clusters {
		if cl.Name != clusterName {
			continue
		}
		found = true
		c.server = strings.TrimSuffix(cl.Cluster.Server, "/")
		if cl.Cluster.CAData != "" {
			pem, err := base64.StdEncoding.DecodeString(cl.Cluster.CAData)
			if err != nil {
				return nil, errors.New("the kubeconfig's certificate-authority-data is not base64")
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, errors.New("the kubeconfig's certificate-authority-data holds no certificate")
			}
			tlsConfig.RootCAs = pool
		}
		// The user asked for it in their kubeconfig; the clouds' never do.
		tlsConfig.InsecureSkipVerify = cl.Cluster.Insecure //nolint:gosec
	}
	if !found || c.server == "" {
		return nil, errors.Errorf("the kubeconfig's context %q names no cluster with a server", ctxName)
	}
	if u, err := url.Parse(c.server); err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, errors.New("the kubeconfig's server is not an http(s) URL")
	}
	for _, u := range kc.Users {
		if u.Name != userName {
			continue
		}
		c.token = u.User.Token
		if u.User.CertData != "" {
			cert, err1 := base64.StdEncoding.DecodeString(u.User.CertData)
			key, err2 := base64.StdEncoding.DecodeString(u.User.KeyData)
			if err1 != nil || err2 != nil {
				return nil, errors.New("the kubeconfig's client certificate is not base64")
			}
			pair, err := tls.X509KeyPair(cert, key)
			if err != nil {
				return nil, errors.New("the kubeconfig's client certificate does not parse")
			}
			tlsConfig.Certificates = []tls.Certificate{pair}
		}
	}
	c.limit = rate.NewLimiter(5, 10)
	c.http = &http.Client{
		// Every call here is short; a drain waits by polling, never by a long request.
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			// As client-go and kubectl: HTTPS_PROXY and NO_PROXY apply.
			Proxy:           http.ProxyFromEnvironment,
			TLSClientConfig: tlsConfig,
		},
	}
	return c, nil
}

// SetRate changes how many requests a second the client sends, in bursts of burst; 0 lifts the
// limit (a test's fake server).
func (c *Client) SetRate(perSecond float64, burst int) {
	if perSecond <= 0 {
		c.limit = nil
		return
	}
	c.limit = rate.NewLimiter(rate.Limit(perSecond), burst)
}

// StatusError is an answer of the API server other than 2xx: the request and status as every
// cloud API's error says them (cloudapi.Error, whose Message is the Status object's message, e.g.
// that an eviction would violate a disruption budget: the server's words, which never hold the
// caller's credentials), with what only Kubernetes adds.
type StatusError struct {
	API cloudapi.Error
	// Reason is the Status's reason (NotFound, TooManyRequests, Forbidden...), when it sent one.
	Reason string
	// Causes are the Status's details.causes reasons (e.g. NamespaceTerminating).
	Causes []string
}

func (e *StatusError) Error() string { return e.API.Error() }

// Unwrap lets cloudapi.StatusOf read the status of a Kubernetes answer as of any other API's.
func (e *StatusError) Unwrap() error { return &e.API }

// Code is the HTTP status of a StatusError anywhere in err's chain, 0 for any other error.
func Code(err error) int { return cloudapi.StatusOf(err) }

// IsNotFound tells whether the server answered 404.
func IsNotFound(err error) bool { return Code(err) == http.StatusNotFound }

// IsTooManyRequests tells whether the server answered 429: for an eviction, a
// PodDisruptionBudget does not allow it now.
func IsTooManyRequests(err error) bool { return Code(err) == http.StatusTooManyRequests }

// HasCause tells whether err is a StatusError whose details carry the cause reason.
func HasCause(err error, reason string) bool {
	var se *StatusError
	if !errors.As(err, &se) {
		return false
	}
	for _, c := range se.Causes {
		if c == reason {
			return true
		}
	}
	return false
}

// getRetries is how many times a GET the server asks to retry later (429 or 503 with
// Retry-After: it is overloaded) is sent again, as client-go does. Other methods are not: an
// eviction's 429 is a PodDisruptionBudget's no, which the caller handles.
const getRetries = 5

// do sends a request, a GET again while the server says to retry after a while, and decodes a
// 2xx answer's body into out (when out is not nil).
func (c *Client) do(ctx context.Context, method, path string, query url.Values, contentType string, body []byte, out any) error {
	for attempt := 0; ; attempt++ {
		if c.limit != nil {
			// Reserve rather than Wait: Wait gives up at once when the turn comes after ctx's
			// deadline, and a caller polling until its deadline wants its own timeout error then.
			r := c.limit.Reserve()
			select {
			case <-ctx.Done():
				r.Cancel()
				return errors.Wrapf(ctx.Err(), "%s %s", method, path)
			case <-time.After(r.Delay()):
			}
		}
		wait, err := c.once(ctx, method, path, query, contentType, body, out)
		if wait <= 0 || method != http.MethodGet || attempt == getRetries {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

// once sends one request; on a 429 or 503 with Retry-After it also says how long to wait.
func (c *Client) once(ctx context.Context, method, path string, query url.Values, contentType string, body []byte, out any) (time.Duration, error) {
	u := c.server + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return 0, errors.Errorf("%s %s: not a request", method, path)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "clusterplane")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		// Said as where the address came from, so that a refused connection reads as the
		// cluster's API being out of reach, not as a bug. The URL is the cluster's endpoint, no
		// secret; the error holds no header.
		return 0, errors.Wrapf(err, "%s %s: the cluster's Kubernetes API at %s (its kubeconfig's server) did not answer",
			method, path, c.server)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		se := &StatusError{API: cloudapi.Error{Method: method, Path: path, Status: resp.StatusCode}}
		var st struct {
			Reason  string `json:"reason"`
			Message string `json:"message"`
			Details struct {
				Causes []struct {
					Reason string `json:"reason"`
				} `json:"causes"`
			} `json:"details"`
		}
		if json.Unmarshal(data, &st) == nil {
			se.Reason, se.API.Message = st.Reason, st.Message
			for _, c := range st.Details.Causes {
				se.Causes = append(se.Causes, c.Reason)
			}
		}
		var wait time.Duration
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			// Only an answer that says when to come back is asked again; it waits at least a
			// second, at most 30.
			if h := resp.Header.Get("Retry-After"); h != "" {
				wait = max(cloudapi.RetryAfter(h, 30*time.Second, time.Now()), time.Second)
			}
		}
		return wait, se
	}
	if err != nil {
		return 0, errors.Wrapf(err, "read %s %s", method, path)
	}
	if out == nil {
		return 0, nil
	}
	return 0, errors.Wrapf(json.Unmarshal(data, out), "read %s %s", method, path)
}

// Get reads one object, e.g. /api/v1/namespaces/ns/pods/name, into out.
func (c *Client) Get(ctx context.Context, path string, out any) error {
	return c.do(ctx, http.MethodGet, path, nil, "", nil, out)
}

// List reads every object of a collection, e.g. /api/v1/pods, page by page (500 a page,
// following metadata.continue). query may hold labelSelector and fieldSelector.
func (c *Client) List(ctx context.Context, path string, query url.Values) ([]json.RawMessage, error) {
	var out []json.RawMessage
	next := ""
	for page := 0; page < 1000; page++ {
		q := url.Values{}
		for k, v := range query {
			q[k] = v
		}
		q.Set("limit", "500")
		if next != "" {
			q.Set("continue", next)
		}
		var l struct {
			Items    []json.RawMessage `json:"items"`
			Metadata struct {
				Continue string `json:"continue"`
			} `json:"metadata"`
		}
		if err := c.do(ctx, http.MethodGet, path, q, "", nil, &l); err != nil {
			return nil, err
		}
		out = append(out, l.Items...)
		if next = l.Metadata.Continue; next == "" {
			return out, nil
		}
	}
	return nil, errors.Errorf("GET %s: too many pages", path)
}

// Patch sends a patch of the content type (MergePatch, StrategicMergePatch) to the object at
// path; out, when not nil, receives the object as patched.
func (c *Client) Patch(ctx context.Context, path, contentType string, patch []byte, out any) error {
	return c.do(ctx, http.MethodPatch, path, nil, contentType, patch, out)
}

// Post creates body (marshalled to JSON) at path, e.g. a pod's eviction subresource; out, when
// not nil, receives the answer.
func (c *Client) Post(ctx context.Context, path string, body any, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return errors.Wrapf(err, "POST %s", path)
	}
	return c.do(ctx, http.MethodPost, path, nil, "application/json", data, out)
}

// Selector is the label or field selector of a set of key=value pairs, sorted by key so that it
// reads the same every time.
func Selector(set map[string]string) string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + set[k]
	}
	return strings.Join(parts, ",")
}
