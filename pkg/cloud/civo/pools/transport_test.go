package pools_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/civo/pools"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

// civoServer answers every GET with the pool, or, while hang is set, answers nothing until
// the request is cancelled (or the test ends). newConns counts the connections it accepted.
type civoServer struct {
	*httptest.Server
	hang     atomic.Bool
	newConns atomic.Int64
}

func newCivoServer(t *testing.T) *civoServer {
	t.Helper()
	s := &civoServer{}
	release := make(chan struct{})
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.hang.Load() {
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"workers","count":1,"size":"g4s.kube.small","instance_names":["n1"]}`))
	}))
	s.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			s.newConns.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	// Runs before Close (cleanups run last first): a handler still hanging would make Close wait.
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	return s
}

func (s *civoServer) client(t *testing.T, opts ...pools.Option) *pools.Client {
	t.Helper()
	c, err := pools.New(token, s.URL, region, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// steady says how many goroutines run once their number stops changing for a moment.
func steady() int {
	n := runtime.NumGoroutine()
	for i := 0; i < 100; i++ {
		time.Sleep(20 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m == n {
			return n
		}
		n = m
	}
	return n
}

// settle waits a little for goroutines that are ending to end, then says how many run.
func settle(atMost int) int {
	n := runtime.NumGoroutine()
	for i := 0; i < 200 && n > atMost; i++ {
		time.Sleep(10 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

func TestACancelledCallToAHangingAPIReturnsAtOnceAndLeavesNothingRunning(t *testing.T) {
	s := newCivoServer(t)
	c := s.client(t)
	if _, _, err := c.Get(context.Background(), cluster, "workers"); err != nil {
		t.Fatal(err)
	}
	before := steady()
	s.hang.Store(true)
	for i := 0; i < 5; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		_, _, err := c.Get(ctx, cluster, "workers")
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("call %d: want the context's error, got %v", i, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("call %d returned %s after its context ended", i, d)
		}
	}
	if after := settle(before); after > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines before five cancelled calls, %d after:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}

func TestARequestThatGetsNoAnswerFailsAfterTheRequestTimeout(t *testing.T) {
	s := newCivoServer(t)
	s.hang.Store(true)
	c := s.client(t, pools.WithRequestTimeout(100*time.Millisecond), pools.WithRetry(cloudapi.Never))
	done := make(chan error, 1)
	go func() {
		_, _, err := c.Get(context.Background(), cluster, "workers")
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "no answer within 100ms") {
			t.Fatalf("want an error saying the request timed out, got %v", err)
		}
		assertNamesPoolAndCluster(t, err, "workers")
		assertNoToken(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("a request to an API that never answers did not time out")
	}
}

func TestClientsReuseOneConnectionForManyRequests(t *testing.T) {
	s := newCivoServer(t)
	// Clients are made one per operation (the plugin's pool resource does), so the pool of connections
	// must outlive each of them.
	for _, c := range []*pools.Client{s.client(t), s.client(t)} {
		for i := 0; i < 3; i++ {
			if _, _, err := c.Get(context.Background(), cluster, "workers"); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := s.newConns.Load(); n != 1 {
		t.Fatalf("six requests in turn opened %d connections, want 1", n)
	}
}

func TestNewRefusesANonPositiveRequestTimeout(t *testing.T) {
	if _, err := pools.New(token, "https://api.civo.com", region, pools.WithRequestTimeout(0)); err == nil {
		t.Fatal("want an error for a zero request timeout")
	}
}
