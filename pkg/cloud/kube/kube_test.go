package kube

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// kubeconfigFor is a kubeconfig of srv for a user given as YAML flow (e.g. {token: x}), with a
// second context that must not be used.
func kubeconfigFor(srv *httptest.Server, user string) []byte {
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: mine
clusters:
- name: other
  cluster: {server: "https://127.0.0.1:1"}
- name: k
  cluster: {server: %q, certificate-authority-data: %s}
contexts:
- name: other
  context: {cluster: other, user: other}
- name: mine
  context: {cluster: k, user: u}
users:
- name: other
  user: {token: wrong}
- name: u
  user: %s
`, srv.URL+"/", b64(ca), user))
}

// clientCert is a self-signed client certificate and its key, PEM.
func clientCert(t *testing.T) (certPEM, keyPEM []byte, cert *x509.Certificate) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "admin"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ = x509.ParseCertificate(der)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), cert
}

func TestTheCurrentContextsCredentialsAreSent(t *testing.T) {
	certPEM, keyPEM, cert := clientCert(t)
	cases := []struct {
		name string
		user string
		ok   func(r *http.Request) bool
	}{
		{"a token", "{token: t0ken}", func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer t0ken" }},
		{"a client certificate", fmt.Sprintf("{client-certificate-data: %s, client-key-data: %s}", b64(certPEM), b64(keyPEM)),
			func(r *http.Request) bool {
				return r.TLS != nil && len(r.TLS.PeerCertificates) == 1 && r.TLS.PeerCertificates[0].Equal(cert) && r.Header.Get("Authorization") == ""
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !tc.ok(r) {
					w.WriteHeader(http.StatusUnauthorized)
					return
				}
				_, _ = w.Write([]byte(`{"metadata":{"name":"n"}}`))
			}))
			srv.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
			srv.StartTLS()
			defer srv.Close()
			c, err := New(kubeconfigFor(srv, tc.user))
			if err != nil {
				t.Fatal(err)
			}
			var obj struct {
				Metadata struct{ Name string } `json:"metadata"`
			}
			if err := c.Get(context.Background(), "/api/v1/nodes/n", &obj); err != nil || obj.Metadata.Name != "n" {
				t.Fatalf("Get = %v, %+v", err, obj)
			}
		})
	}
}

func TestAKubeconfigIsNeverQuotedInAnError(t *testing.T) {
	const secret = "s3cr3t-value"
	cases := map[string]string{
		"not YAML":                    "token: " + secret + "\n\tnot yaml: [",
		"no cluster for the context":  "current-context: x\nusers: [{name: u, user: {token: " + secret + "}}]",
		"a CA that is not base64":     "current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\nclusters: [{name: k, cluster: {server: 'https://h', certificate-authority-data: '" + secret + "!'}}]",
		"a CA that is no certificate": "current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\nclusters: [{name: k, cluster: {server: 'https://h', certificate-authority-data: " + b64([]byte(secret)) + "}}]",
		"a client key that does not parse": "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\nclusters: [{name: k, cluster: {server: 'https://h'}}]\n" +
			"users: [{name: u, user: {client-certificate-data: " + b64([]byte(secret)) + ", client-key-data: " + b64([]byte(secret)) + "}}]",
		"a server that is no URL": "current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\nclusters: [{name: k, cluster: {server: '" + secret + "'}}]",
	}
	for name, kc := range cases {
		_, err := New([]byte(kc))
		if err == nil || strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), b64([]byte(secret))) {
			t.Errorf("%s: New = %v; want an error that does not quote the kubeconfig", name, err)
		}
	}
}

func TestAListFollowsContinueAndKeepsItsSelectors(t *testing.T) {
	var queries []url.Values
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		queries = append(queries, q)
		next := map[string]string{"": "p2", "p2": "p3", "p3": ""}[q.Get("continue")]
		_ = json.NewEncoder(w).Encode(map[string]any{
			"items":    []map[string]string{{"page": q.Get("continue")}},
			"metadata": map[string]string{"continue": next},
		})
	}))
	defer srv.Close()
	c, err := New(kubeconfigFor(srv, "{token: t}"))
	if err != nil {
		t.Fatal(err)
	}
	items, err := c.List(context.Background(), "/api/v1/pods", url.Values{"fieldSelector": {Selector(map[string]string{"spec.nodeName": "n1"})}})
	if err != nil || len(items) != 3 {
		t.Fatalf("List = %d items, %v; want 3 pages of 1", len(items), err)
	}
	var pages []string
	for _, q := range queries {
		if q.Get("fieldSelector") != "spec.nodeName=n1" || q.Get("limit") != "500" {
			t.Errorf("a page asked %v, want the selector and a limit on every page", q)
		}
		pages = append(pages, q.Get("continue"))
	}
	if !slices.Equal(pages, []string{"", "p2", "p3"}) {
		t.Errorf("continue tokens %q", pages)
	}
}

func TestAnAPIRefusalCarriesTheServersReasonAndMessage(t *testing.T) {
	var gotType, gotBody string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotType = r.Header.Get("Content-Type")
		b, _ := io.ReadAll(r.Body)
		gotBody = string(b)
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"kind":"Status","reason":"TooManyRequests","message":"Cannot evict pod as it would violate the pod's disruption budget.","details":{"causes":[{"reason":"DisruptionBudget"}]}}`))
	}))
	defer srv.Close()
	c, err := New(kubeconfigFor(srv, "{token: t}"))
	if err != nil {
		t.Fatal(err)
	}
	err = c.Post(context.Background(), "/api/v1/namespaces/a/pods/b/eviction", map[string]string{"kind": "Eviction"}, nil)
	if !IsTooManyRequests(err) || IsNotFound(err) || !HasCause(err, "DisruptionBudget") || HasCause(err, "NamespaceTerminating") {
		t.Errorf("Post = %v; want a 429 with its cause", err)
	}
	if err == nil || !strings.Contains(err.Error(), "disruption budget") || !strings.Contains(err.Error(), "POST /api/v1/namespaces/a/pods/b/eviction") {
		t.Errorf("the error %v does not say what was refused and why", err)
	}
	if gotType != "application/json" || gotBody != `{"kind":"Eviction"}` {
		t.Errorf("sent %s %s", gotType, gotBody)
	}
	if err := c.Patch(context.Background(), "/api/v1/nodes/n", MergePatch, []byte(`{}`), nil); Code(err) != 429 || gotType != MergePatch {
		t.Errorf("Patch = %v sent as %s", err, gotType)
	}
}

func TestASelectorReadsTheSameEveryTime(t *testing.T) {
	if got := Selector(map[string]string{"b": "2", "a": "1", "c": "3"}); got != "a=1,b=2,c=3" {
		t.Errorf("Selector = %q", got)
	}
}

func TestAGetTheServerAsksToRetryIsSentAgainButAnEvictionIsNot(t *testing.T) {
	tests := []struct {
		name, retryAfter string
		// gets is how many GETs reach the server: 2 when the first is asked again.
		gets int
	}{
		{"a Retry-After in seconds", "1", 2},
		{"a Retry-After as an HTTP date", time.Now().Add(time.Second).UTC().Format(http.TimeFormat), 2},
		{"no Retry-After", "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := map[string]int{}
			srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls[r.Method]++
				if calls[r.Method] == 1 {
					if tt.retryAfter != "" {
						w.Header().Set("Retry-After", tt.retryAfter)
					}
					w.WriteHeader(http.StatusTooManyRequests)
					_, _ = w.Write([]byte(`{"kind":"Status","reason":"TooManyRequests","message":"too many requests, please try again later"}`))
					return
				}
				_, _ = w.Write([]byte(`{}`))
			}))
			defer srv.Close()
			c, err := New(kubeconfigFor(srv, "{token: t}"))
			if err != nil {
				t.Fatal(err)
			}
			err = c.Get(context.Background(), "/api/v1/nodes/n", nil)
			if calls["GET"] != tt.gets || (tt.gets == 2) != (err == nil) {
				t.Errorf("Get = %v after %d calls; want %d", err, calls["GET"], tt.gets)
			}
			if tt.gets == 1 && (cloudapi.StatusOf(err) != 429 || !strings.Contains(err.Error(), "GET /api/v1/nodes/n: HTTP 429 too many requests")) {
				t.Errorf("Get = %v, want the request, the status and the server's message, as every API's errors say them", err)
			}
			// A 429 to a POST is the caller's to handle: an eviction's is a PodDisruptionBudget's no.
			if err := c.Post(context.Background(), "/api/v1/namespaces/a/pods/b/eviction", map[string]string{}, nil); !IsTooManyRequests(err) || calls["POST"] != 1 {
				t.Errorf("Post = %v after %d calls; want the 429 returned at once", err, calls["POST"])
			}
		})
	}
}

func TestRequestsAreSpacedAsClientGosDefaults(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{}`)) }))
	defer srv.Close()
	c, err := New(kubeconfigFor(srv, "{token: t}"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	// A burst of 10, then 5 a second: the 13th request goes out 600 ms after the first.
	for i := 0; i < 13; i++ {
		if err := c.Get(context.Background(), "/api/v1/nodes/n", nil); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took < 500*time.Millisecond {
		t.Errorf("13 requests in %s; want them spaced to 5 a second after a burst of 10", took)
	}
	// A caller whose deadline comes before its turn gets its own deadline's error, not the limiter's.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	for i := 0; i < 3; i++ {
		if err := c.Get(ctx, "/api/v1/nodes/n", nil); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a Get past its deadline: %v, want the deadline's error", err)
		}
	}
}

// A server nobody answers at (the sandbox's kubeconfigs name one) is said as the cluster's API
// out of reach, naming the address and where it came from.
func TestAnAPIServerThatDoesNotAnswerIsNamedAsTheKubeconfigsServer(t *testing.T) {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	kubeconfig := kubeconfigFor(srv, "{token: t}")
	srv.Close() // nothing listens there now
	c, err := New(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.List(context.Background(), "/api/v1/nodes", nil)
	if err == nil {
		t.Fatal("a list from a server that is gone succeeded")
	}
	for _, want := range []string{"GET /api/v1/nodes", "Kubernetes API at " + srv.URL, "kubeconfig's server", "did not answer"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q does not say %q", err, want)
		}
	}
}
