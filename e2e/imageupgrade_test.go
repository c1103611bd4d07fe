//go:build e2e

package e2e_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
)

// previousImage is the OCI layout of serve's image around previousVersion's clusterplane (built
// static, as make images builds it), packed by this commit's tools/images with the engine the
// e2e runs: what a cluster that runs the previous release's image has. Its tag is returned too.
func previousImage(t *testing.T, e *env) (layout, tag string) {
	t.Helper()
	old := previousBinary(t)
	// podman names the image after the layout's path, which must be lowercase: the test's own
	// folder is named after the test.
	out, err := os.MkdirTemp("", "clusterplane-previous-image")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(out) })
	cmd := exec.Command("go", "run", ".", "-out", out, "-engine", filepath.Join(root, ".engine"), "-version", "v0.0.0-previous",
		"-revision", previousVersion, "-clusterplane", old, "-karpenter", filepath.Join(root, "bin", "images", "build", "karpenter-clusterplane"))
	cmd.Dir = filepath.Join(root, "tools", "images")
	if said, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pack the previous version's image: %v\n%s", err, said)
	}
	return filepath.Join(out, "clusterplane"), "v0.0.0-previous"
}

// writer sends a steady stream of writes (cluster creates) to whichever replica answers, as a
// load balancer would: a replica that refuses the connection (stopped, or not yet listening) is
// skipped, never counted; any 5xx answer is.
type writer struct {
	mu       sync.Mutex
	replicas []*api
	created  []string
	// through counts the creates each replica answered, by its URL.
	through map[string]int
	fiveXX  []string
	stop    chan struct{}
	done    chan struct{}
}

// serveTo makes a the replica writes go to, in place of any other of the same slot.
func (w *writer) serveTo(slot int, a *api) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.replicas) <= slot {
		w.replicas = append(w.replicas, nil)
	}
	w.replicas[slot] = a
}

// run writes one cluster every interval until stop.
func (w *writer) run(interval time.Duration) {
	defer close(w.done)
	for i := 0; ; i++ {
		select {
		case <-w.stop:
			return
		case <-time.After(interval):
		}
		body := fmt.Sprintf(`{"name": "roll-%d", "spec": {"platform": {"type": "digitalocean", "digitalocean": {"region": "fra1",
			"kubernetesVersion": "1.31.1-do.5", "defaultNodePool": {"size": "s-2vcpu-4gb", "nodeCount": 1}}}}}`, i)
		w.mu.Lock()
		replicas := append([]*api(nil), w.replicas...)
		w.mu.Unlock()
		for j := range replicas {
			a := replicas[(i+j)%len(replicas)]
			if a == nil {
				continue
			}
			req, _ := http.NewRequest("POST", a.url+"/api/v1/clusters", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+a.token)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) {
				continue // that replica is down: the next one takes it
			}
			if err != nil {
				continue
			}
			var out map[string]any
			_ = json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			w.mu.Lock()
			switch {
			case resp.StatusCode >= 500:
				w.fiveXX = append(w.fiveXX, fmt.Sprintf("%s: %d %v", a.url, resp.StatusCode, out))
			case resp.StatusCode == http.StatusCreated:
				w.created = append(w.created, out["id"].(string))
				w.through[a.url]++
			}
			w.mu.Unlock()
			break
		}
	}
}

// A rolling upgrade of serve's image: two containers of the previous version's image serve one
// PostgreSQL database, API and worker each, under a steady stream of cluster creates; each is
// replaced in turn by a container of this commit's image (stopped with SIGINT, the next started).
// No write is answered with a 5xx, every cluster created through any replica ends Ready, and the
// cloud holds each once.
// Promise: image-rolling-upgrade-loses-no-job
func TestARollingUpgradeFromThePreviousImageLosesNoJobAndAnswersNo5xx(t *testing.T) {
	t.Parallel()
	layout, tag := imageLayout(t, "clusterplane")
	e := newEnv(t)
	oldLayout, oldTag := previousImage(t, e)
	pg := pgtest.Start(t)
	db, state := pg.Database("serve"), pg.Database("state")
	oldRun, _ := podmanRunner(t, e, oldLayout, oldTag, state)
	newRun, _ := podmanRunner(t, e, layout, tag, state)
	made := exec.Command(previousBinary(t), "serve", "token", "create", "--database-url", db, "--name", "e2e", "--role", "editor")
	made.Dir, made.Env = e.dir, e.vars
	out, err := made.Output()
	if err != nil {
		t.Fatalf("the previous version's serve token create: %v", err)
	}
	token := strings.TrimSpace(string(out))
	w := &writer{stop: make(chan struct{}), done: make(chan struct{}), through: map[string]int{}}
	var olds, news []*api
	for slot := range 2 {
		olds = append(olds, e.startServeOf(oldRun, db, token, "--listen", "127.0.0.1:0", "--workers", "1"))
		w.serveTo(slot, olds[slot])
	}
	go w.run(3 * time.Second)
	time.Sleep(8 * time.Second)
	for slot := range 2 {
		w.mu.Lock()
		old := w.replicas[slot]
		w.mu.Unlock()
		old.stop()
		news = append(news, e.startServeOf(newRun, db, token, "--listen", "127.0.0.1:0", "--workers", "1"))
		w.serveTo(slot, news[slot])
		time.Sleep(8 * time.Second)
	}
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.fiveXX) > 0 {
		t.Errorf("writes answered with a 5xx during the rollout: %v", w.fiveXX)
	}
	if len(w.created) < 4 {
		t.Fatalf("only %d clusters were created during the rollout, want a steady stream", len(w.created))
	}
	for _, set := range []struct {
		name     string
		replicas []*api
	}{{"the previous image's", olds}, {"this image's", news}} {
		n := 0
		for _, a := range set.replicas {
			n += w.through[a.url]
		}
		if n == 0 {
			t.Errorf("no create went through %s replicas: the rollout was not served by both", set.name)
		}
	}
	for _, id := range w.created {
		w.replicas[0].waitStatus("/api/v1/clusters/"+id, "True")
	}
	names := map[string]int{}
	for _, c := range e.do.Clusters() {
		names[c.Name]++
	}
	for name, n := range names {
		if n != 1 {
			t.Errorf("the cloud holds %d clusters named %s, want 1", n, name)
		}
	}
	if len(names) != len(w.created) {
		t.Errorf("the cloud holds %d clusters, want the %d created through the API", len(names), len(w.created))
	}
}
