package metrics

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

// MaxOperations bounds the cloud request operations counted apart; any further one is
// "other". The clouds' APIs have a few dozen; the bound holds whatever paths a cloud is sent.
const MaxOperations = 100

// ObserveClouds counts every cloud request of this process (cloudapi's one transport) until the
// returned function is called.
func (m *Metrics) ObserveClouds() (stop func()) {
	return cloudapi.Observe(func(_ context.Context, r cloudapi.Request) {
		cloud := r.Cloud
		if cloud == "" {
			cloud = "other"
		}
		op := m.operations.name(r.Method, r.Path)
		m.cloud.WithLabelValues(cloud, op, strconv.Itoa(r.Status)).Inc()
		m.cloudTime.WithLabelValues(cloud, op).Observe(r.Duration.Seconds())
	})
}

// operations names cloud requests by their method and path with the ids cut out, and holds
// the names to a bound.
type operations struct {
	mu    sync.Mutex
	seen  map[string]bool
	limit int
}

func newOperations(limit int) *operations {
	return &operations{seen: map[string]bool{}, limit: limit}
}

// name is "GET /v2/kubernetes/clusters/{id}/node_pools" for GET /v2/kubernetes/clusters/<uuid>/node_pools,
// or "other" once limit names were given.
func (o *operations) name(method, path string) string {
	n := method + " " + Operation(path)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.seen[n] {
		return n
	}
	if len(o.seen) >= o.limit {
		return "other"
	}
	o.seen[n] = true
	return n
}

// Operation is path with each segment that may be an id or a name replaced by {id}: a segment
// is kept only when it is a word of lower-case letters and underscores of at most 24 (the
// APIs' collection names, "kubernetes", "node_pools"), or a version ("v2"). Ids (UUIDs,
// numbers) and the names clouds take in paths (with digits or hyphens) become {id}; a name of
// letters alone would stay, which is why MaxOperations bounds the names as well.
func Operation(path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for i, s := range segs {
		if !word(s) && !version(s) {
			segs[i] = "{id}"
		}
	}
	return "/" + strings.Join(segs, "/")
}

func word(s string) bool {
	if s == "" || len(s) > 24 {
		return false
	}
	for _, c := range s {
		if (c < 'a' || c > 'z') && c != '_' {
			return false
		}
	}
	return true
}

func version(s string) bool {
	if len(s) < 2 || len(s) > 3 || s[0] != 'v' {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
