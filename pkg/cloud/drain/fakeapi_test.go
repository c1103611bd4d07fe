package drain

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// fakeAPI is the few calls of a Kubernetes API server a drain makes, over objects in memory:
// nodes and pods listed (one item a page, so that paging is always exercised), nodes patched,
// pods read and evicted, DaemonSets read.
type fakeAPI struct {
	t  *testing.T
	mu sync.Mutex
	// nodes and pods by name and namespace/name.
	nodes map[string]*corev1.Node
	pods  map[string]*corev1.Pod
	// daemonSets that exist, as namespace/name.
	daemonSets map[string]bool
	// refuse is how many more evictions of a pod (namespace/name) a PDB refuses; -1: every one.
	refuse map[string]int
	// evicted are the pods evicted, in order; patches the node patches, as node: body.
	evicted []string
	patches []string
}

const fakeToken = "s3cr3t-t0ken"

// newFakeAPI serves the fake over TLS and returns a client of it through a kubeconfig, as New
// reads one.
func newFakeAPI(t *testing.T) (*fakeAPI, *Client) {
	f := &fakeAPI{t: t, nodes: map[string]*corev1.Node{}, pods: map[string]*corev1.Pod{},
		daemonSets: map[string]bool{}, refuse: map[string]int{}}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	// A test that ends while the client still dials logs a TLS handshake error: noise, not news.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	kubeconfig := fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: c
clusters:
- name: k
  cluster: {server: %q, certificate-authority-data: %s}
contexts:
- name: c
  context: {cluster: k, user: u}
users:
- name: u
  user: {token: %s}
`, srv.URL, b64(ca), fakeToken)
	c, err := New([]byte(kubeconfig))
	if err != nil {
		t.Fatal(err)
	}
	c.poll, c.retry = 5e6, 10e6 // 5 ms, 10 ms
	// The fake answers at once; the real client's 5 requests a second would only slow the tests.
	c.kube.SetRate(0, 0)
	return f, c
}

// node adds a Ready, schedulable node with the labels.
func (f *fakeAPI) node(name string, labels map[string]string) {
	f.nodes[name] = &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	}
}

// pod adds a running pod on the node, owned by the controller kind (apps/v1) when not empty.
func (f *fakeAPI) pod(node, ns, name, controller string) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + ns + "-" + name)},
		Spec:       corev1.PodSpec{NodeName: node},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
	if controller != "" {
		yes := true
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: controller, Name: name + "-owner", Controller: &yes}}
	}
	f.pods[ns+"/"+name] = p
	return p
}

func (f *fakeAPI) status(w http.ResponseWriter, code int, reason, msg string) {
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure",
		"reason": reason, "message": msg, "code": code})
}

// page answers a list one item a page, the continue token being the next item's index.
func page[T any](w http.ResponseWriter, r *http.Request, items []T) {
	from, _ := strconv.Atoi(r.URL.Query().Get("continue"))
	out := map[string]any{"items": []T{}, "metadata": map[string]string{}}
	if from < len(items) {
		out["items"] = items[from : from+1]
		if from+1 < len(items) {
			out["metadata"] = map[string]string{"continue": strconv.Itoa(from + 1)}
		}
	}
	_ = json.NewEncoder(w).Encode(out)
}

// matches tells whether labels carry every k=v of the selector.
func matches(selector string, labels map[string]string) bool {
	for _, term := range strings.Split(selector, ",") {
		k, v, _ := strings.Cut(term, "=")
		if labels[k] != v {
			return false
		}
	}
	return true
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer "+fakeToken {
		f.status(w, http.StatusUnauthorized, "Unauthorized", "Unauthorized")
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/nodes":
		var items []corev1.Node
		for _, n := range f.nodes {
			if matches(r.URL.Query().Get("labelSelector"), n.Labels) {
				items = append(items, *n)
			}
		}
		slices.SortFunc(items, func(a, b corev1.Node) int { return strings.Compare(a.Name, b.Name) })
		page(w, r, items)
	case r.Method == http.MethodPatch && len(parts) == 4 && parts[2] == "nodes":
		f.patchNode(w, r, parts[3])
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/pods":
		node := strings.TrimPrefix(r.URL.Query().Get("fieldSelector"), "spec.nodeName=")
		var items []corev1.Pod
		for _, p := range f.pods {
			if p.Spec.NodeName == node {
				items = append(items, *p)
			}
		}
		slices.SortFunc(items, func(a, b corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
		page(w, r, items)
	case len(parts) >= 6 && parts[2] == "namespaces" && parts[4] == "pods":
		f.readOrEvictPod(w, r, parts)
	case r.Method == http.MethodGet && len(parts) == 7 && parts[0] == "apis" && parts[5] == "daemonsets":
		if !f.daemonSets[parts[4]+"/"+parts[6]] {
			f.status(w, http.StatusNotFound, "NotFound", "daemonsets "+parts[6]+" not found")
			return
		}
		_, _ = w.Write([]byte(`{"kind":"DaemonSet"}`))
	default:
		f.t.Errorf("the drain called %s %s, which the fake does not serve", r.Method, r.URL)
		f.status(w, http.StatusNotFound, "NotFound", "not served")
	}
}

// patchNode cordons or uncordons a node as a strategic merge patch of its spec asks, and records it.
func (f *fakeAPI) patchNode(w http.ResponseWriter, r *http.Request, name string) {
	n := f.nodes[name]
	if n == nil {
		f.status(w, http.StatusNotFound, "NotFound", "no node")
		return
	}
	var patch struct {
		Spec struct {
			Unschedulable *bool `json:"unschedulable"`
		} `json:"spec"`
	}
	if r.Header.Get("Content-Type") != "application/strategic-merge-patch+json" || json.NewDecoder(r.Body).Decode(&patch) != nil {
		f.status(w, http.StatusUnsupportedMediaType, "UnsupportedMediaType", "not a patch")
		return
	}
	n.Spec.Unschedulable = patch.Spec.Unschedulable != nil && *patch.Spec.Unschedulable
	f.patches = append(f.patches, fmt.Sprintf("%s: %v", n.Name, n.Spec.Unschedulable))
	_ = json.NewEncoder(w).Encode(n)
}

// readOrEvictPod answers a pod's get, or its eviction, which a disruption budget may refuse.
func (f *fakeAPI) readOrEvictPod(w http.ResponseWriter, r *http.Request, parts []string) {
	key := parts[3] + "/" + parts[5]
	p := f.pods[key]
	if p == nil {
		f.status(w, http.StatusNotFound, "NotFound", "pods "+parts[5]+" not found")
		return
	}
	if r.Method == http.MethodGet && len(parts) == 6 {
		_ = json.NewEncoder(w).Encode(p)
		return
	}
	if r.Method != http.MethodPost || len(parts) != 7 || parts[6] != "eviction" {
		return
	}
	var ev struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Metadata   metav1.ObjectMeta `json:"metadata"`
	}
	if json.NewDecoder(r.Body).Decode(&ev) != nil || ev.APIVersion != "policy/v1" || ev.Kind != "Eviction" || ev.Metadata.Name != p.Name {
		f.status(w, http.StatusBadRequest, "BadRequest", "not an eviction of this pod")
		return
	}
	if n := f.refuse[key]; n != 0 {
		if n > 0 {
			f.refuse[key] = n - 1
		}
		f.status(w, http.StatusTooManyRequests, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.")
		return
	}
	delete(f.pods, key)
	f.evicted = append(f.evicted, key)
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write([]byte(`{"kind":"Status","status":"Success"}`))
}

// state is a copy of what the fake holds, taken under its lock.
func (f *fakeAPI) state() (evicted []string, left []string, cordoned map[string]bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cordoned = map[string]bool{}
	for name, n := range f.nodes {
		cordoned[name] = n.Spec.Unschedulable
	}
	for key := range f.pods {
		left = append(left, key)
	}
	slices.Sort(left)
	return slices.Clone(f.evicted), left, cordoned
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
