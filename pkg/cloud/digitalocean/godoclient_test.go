package digitalocean_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/digitalocean/godo"

	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
)

// Promise: retries-four-more-within-thirty-seconds
func TestAGodoCreateAnsweredWithAServerErrorIsSentOnceWithItsToken(t *testing.T) {
	var posts atomic.Int32
	var auth atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posts.Add(1)
			auth.Store(r.Header.Get("Authorization"))
			// The cloud carried the create out, then failed to say so.
			http.Error(w, `{"id":"server_error","message":"oops"}`, http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"node_pools":[],"links":{},"meta":{"total":0}}`))
	}))
	defer srv.Close()
	c, err := digitalocean.Godo("dop_v1_secret", srv.URL, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, _, err := c.Kubernetes.CreateNodePool(ctx, "cid", &godo.KubernetesNodePoolCreateRequest{Name: "workers-surge"}); err == nil {
		t.Fatal("a create answered 500 returned no error")
	}
	if n := posts.Load(); n != 1 {
		t.Errorf("the create was sent %d times, want once: a retried POST makes a second pool", n)
	}
	if got, _ := auth.Load().(string); got != "Bearer dop_v1_secret" {
		t.Errorf("the create carried Authorization %q, want the token", got)
	}
	if _, _, err := c.Kubernetes.ListNodePools(ctx, "cid", nil); err != nil {
		t.Errorf("a read through the retrying transport: %v", err)
	}
}
