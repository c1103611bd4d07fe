// Package fakecivo is a loopback Civo API for node pools, for the tests of pkg/civopool,
// pkg/civopoolresource and the real-engine tests (e2e): what it accepts and answers is what
// civogo v0.3.89 sends and decodes.
package fakecivo

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/civo/civogo"
	corev1 "k8s.io/api/core/v1"
)

// Civo is a loopback Civo API for node pools that speaks the JSON civogo v0.3.89
// sends and expects: POST/GET/PUT/DELETE /v2/kubernetes/clusters/{cid}/pools[/{pid}],
// "bearer <token>" authorization, ?region= on GET and DELETE, "region" in the bodies.
//
// Like Civo (as far as its clients show), a PUT changes only the keys present in its
// body: a missing "labels" key leaves the labels alone, "labels": {} clears them.
// It adds Civo's own label kubernetes.civo.com/node-pool to every pool it reports.
type Civo struct {
	token  string
	region string
	srv    *httptest.Server

	mu       sync.Mutex
	clusters map[string]bool
	pools    map[string]*fakePool // by cluster id + "/" + pool id
	requests []Request
	failures []fakeFailure
	// BuildPolls is how many GETs a node stays BUILDING after a create or a scale.
	BuildPolls int
	// NeverReady keeps every node BUILDING.
	NeverReady bool
	// AnyCluster accepts pools in any cluster: the real-engine tests' clusters are the stand-in
	// provider's, whose ids the API does not know.
	AnyCluster bool
	// EchoAuth makes error answers echo the request's Authorization header, as a
	// careless proxy might, to prove the token is scrubbed from errors.
	EchoAuth bool
}

type fakePool struct {
	pool    civogo.KubernetesPool
	pending int
}

// Request is one request received.
type Request struct {
	Method, Path, Query, Body string
}

// fakeFailure answers the next times requests with method (any when "") with status.
type fakeFailure struct {
	method string
	status int
	times  int
}

// New starts the API, with clusters existing, answering only token, in region (any region when
// empty); it stops when the test ends.
func New(t testing.TB, token, region string, clusters ...string) *Civo {
	t.Helper()
	f := &Civo{token: token, region: region, clusters: map[string]bool{}, pools: map[string]*fakePool{}}
	for _, c := range clusters {
		f.clusters[c] = true
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen on loopback: %v", err)
	}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	f.srv.Listener.Close()
	f.srv.Listener = l
	f.srv.Start()
	t.Cleanup(f.srv.Close)
	return f
}

// URL is the API's base URL, for civogo or CIVO_API_URL.
func (f *Civo) URL() string { return f.srv.URL }

// Close stops the API: later requests find nothing listening.
func (f *Civo) Close() { f.srv.Close() }

// Pool is the pool as Civo would report it, and whether it exists.
func (f *Civo) Pool(cid, id string) (civogo.KubernetesPool, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.pools[cid+"/"+id]
	if !ok {
		return civogo.KubernetesPool{}, false
	}
	return f.render(p), true
}

// Pools counts the pools of every cluster.
func (f *Civo) Pools() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.pools)
}

// Scale sets a pool's node count behind its manager's back, as the console or the autoscaler
// would, its nodes ready.
func (f *Civo) Scale(cid, id string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p, ok := f.pools[cid+"/"+id]; ok {
		p.setNodes(n, 0)
	}
}

// Fail answers the next times requests with method (any when "") with status.
func (f *Civo) Fail(method string, status, times int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures = append(f.failures, fakeFailure{method, status, times})
}

// Seed puts a ready pool into the fake, as if it had been created earlier.
func (f *Civo) Seed(cid string, p civogo.KubernetesPool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fp := &fakePool{pool: p}
	fp.setNodes(p.Count, 0)
	f.pools[cid+"/"+p.ID] = fp
}

// LastBody is the JSON body of the last request received with method, decoded; the test fails
// when there is none.
func (f *Civo) LastBody(t testing.TB, method string) map[string]any {
	t.Helper()
	reqs := f.Requests(method)
	if len(reqs) == 0 {
		t.Fatalf("the Civo API received no %s", method)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(reqs[len(reqs)-1].Body), &body); err != nil {
		t.Fatal(err)
	}
	return body
}

// Requests are the requests received with method ("" for all), in order.
func (f *Civo) Requests(method string) []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Request
	for _, r := range f.requests {
		if method == "" || r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// Reset forgets the requests received.
func (f *Civo) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = nil
}

func (p *fakePool) setNodes(n, pending int) {
	p.pool.Count = n
	p.pending = pending
	p.pool.InstanceNames = nil
	p.pool.Instances = nil
	for i := range n {
		name := fmt.Sprintf("k3s-%s-node-%d", p.pool.ID, i)
		p.pool.InstanceNames = append(p.pool.InstanceNames, name)
		p.pool.Instances = append(p.pool.Instances, civogo.KubernetesInstance{ID: name, Hostname: name})
	}
}

func (f *Civo) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, Request{r.Method, r.URL.Path, r.URL.RawQuery, string(body)})

	errorf := func(status int, code, reason string) {
		if f.EchoAuth {
			reason += " (request had Authorization: " + r.Header.Get("Authorization") + ")"
		}
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]string{"code": code, "reason": reason})
	}
	if r.Header.Get("Authorization") != "bearer "+f.token {
		errorf(401, "authentication_failed", "bad token")
		return
	}
	for i := range f.failures {
		fl := &f.failures[i]
		if fl.times > 0 && (fl.method == "" || fl.method == r.Method) {
			fl.times--
			errorf(fl.status, "injected", fmt.Sprintf("injected HTTP %d", fl.status))
			return
		}
	}
	if (r.Method == "GET" || r.Method == "DELETE") && (r.URL.Query().Get("region") == "" || f.region != "" && r.URL.Query().Get("region") != f.region) {
		errorf(400, "region_unavailable", "missing or wrong ?region=")
		return
	}

	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) < 5 || parts[0] != "v2" || parts[1] != "kubernetes" || parts[2] != "clusters" || parts[4] != "pools" {
		errorf(404, "not_found", "no such endpoint")
		return
	}
	cid := parts[3]
	if !f.clusters[cid] && !f.AnyCluster {
		errorf(404, "database_kubernetes_cluster_not_found", "no such cluster")
		return
	}
	var fields map[string]json.RawMessage
	if r.Method == "POST" || r.Method == "PUT" {
		if err := json.Unmarshal(body, &fields); err != nil {
			errorf(400, "bad_json", err.Error())
			return
		}
		if len(fields["region"]) < 3 || f.region != "" && string(fields["region"]) != `"`+f.region+`"` {
			errorf(400, "region_unavailable", "missing or wrong region in the body")
			return
		}
	}

	if len(parts) == 5 && r.Method == "POST" {
		var cfg civogo.KubernetesClusterPoolConfig
		if err := json.Unmarshal(body, &cfg); err != nil {
			errorf(400, "bad_json", err.Error())
			return
		}
		if _, ok := f.pools[cid+"/"+cfg.ID]; ok {
			errorf(409, "duplicate", "pool exists")
			return
		}
		p := &fakePool{pool: civogo.KubernetesPool{ID: cfg.ID, Size: cfg.Size, Labels: cfg.Labels, Taints: cfg.Taints, PublicIPNodePool: cfg.PublicIPNodePool}}
		p.setNodes(cfg.Count, f.BuildPolls)
		f.pools[cid+"/"+cfg.ID] = p
		_ = json.NewEncoder(w).Encode(civogo.SimpleResponse{ID: cfg.ID, Result: "success"})
		return
	}
	if len(parts) != 6 {
		errorf(405, "method_not_allowed", r.Method+" "+r.URL.Path)
		return
	}
	key := cid + "/" + parts[5]
	p, ok := f.pools[key]
	if !ok {
		errorf(404, "database_kubernetes_cluster_pool_not_found", "no such pool")
		return
	}
	switch r.Method {
	case "GET":
		if p.pending > 0 {
			p.pending--
		}
		_ = json.NewEncoder(w).Encode(f.render(p))
	case "PUT":
		if raw, ok := fields["count"]; ok {
			var n int
			if err := json.Unmarshal(raw, &n); err != nil {
				errorf(400, "bad_json", err.Error())
				return
			}
			p.setNodes(n, f.BuildPolls)
		}
		if raw, ok := fields["labels"]; ok {
			var labels map[string]string
			if err := json.Unmarshal(raw, &labels); err != nil {
				errorf(400, "bad_json", err.Error())
				return
			}
			p.pool.Labels = labels
		}
		if raw, ok := fields["taints"]; ok {
			if string(raw) == "null" {
				errorf(422, "invalid_taints", "taints must be a list")
				return
			}
			var taints []corev1.Taint
			if err := json.Unmarshal(raw, &taints); err != nil {
				errorf(400, "bad_json", err.Error())
				return
			}
			p.pool.Taints = taints
		}
		_ = json.NewEncoder(w).Encode(f.render(p))
	case "DELETE":
		delete(f.pools, key)
		_ = json.NewEncoder(w).Encode(civogo.SimpleResponse{Result: "success"})
	default:
		errorf(405, "method_not_allowed", r.Method)
	}
}

func (f *Civo) render(p *fakePool) civogo.KubernetesPool {
	out := p.pool
	out.Labels = maps.Clone(p.pool.Labels)
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	out.Labels["kubernetes.civo.com/node-pool"] = p.pool.ID
	out.Instances = nil
	for _, in := range p.pool.Instances {
		in.Status = "ACTIVE"
		if f.NeverReady || p.pending > 0 {
			in.Status = "BUILDING"
		}
		out.Instances = append(out.Instances, in)
	}
	return out
}
