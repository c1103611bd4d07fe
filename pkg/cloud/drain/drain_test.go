package drain

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestPoolSelectorIsTheCloudsNodeLabel(t *testing.T) {
	cases := []struct {
		name, cloud, pool, id string
		want                  map[string]string
		err                   string
	}{
		{"DigitalOcean selects by the pool's name", DigitalOcean, "web", "uuid", map[string]string{"doks.digitalocean.com/node-pool": "web"}, ""},
		{"Civo selects by the pool's id", Civo, "", "pool-1", map[string]string{"kubernetes.civo.com/civo-node-pool": "pool-1"}, ""},
		{"a DigitalOcean pool without a name has no selector", DigitalOcean, "", "uuid", nil, "name"},
		{"a Civo pool without an id has no selector", Civo, "web", "", nil, "id"},
		{"an unknown cloud is refused", "aws", "web", "id", nil, `"aws"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := PoolSelector(c.cloud, c.pool, c.id)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one mentioning %s", err, c.err)
				}
				return
			}
			if err != nil || !maps.Equal(got, c.want) {
				t.Fatalf("PoolSelector = %v, %v; want %v", got, err, c.want)
			}
		})
	}
}

func TestAPoolWithoutASelectorIsNeverTheWholeCluster(t *testing.T) {
	// No clientset: the refusal comes before any call to the API server.
	c := &Client{}
	ctx := context.Background()
	p := Pool{Name: "web"}
	for name, err := range map[string]error{
		"Cordon":    c.Cordon(ctx, p),
		"Uncordon":  c.Uncordon(ctx, p),
		"Drain":     c.Drain(ctx, p, Options{}),
		"WaitReady": c.WaitReady(ctx, p, 1, 0),
	} {
		if err == nil || !strings.Contains(err.Error(), "every node") {
			t.Errorf("%s with an empty selector: %v, want a refusal", name, err)
		}
	}
}

func TestAKubeconfigThatDoesNotParseIsNotRepeated(t *testing.T) {
	secret := "token: s3cr3t-t0ken-value\n\tnot yaml: ["
	_, err := New([]byte(secret))
	if err == nil || strings.Contains(err.Error(), "s3cr3t") {
		t.Fatalf("New on garbage: %v; want an error that does not quote it", err)
	}
}

func TestOnlyPodsADrainMovesAreLeft(t *testing.T) {
	ds := metav1.OwnerReference{Kind: "DaemonSet", Name: "logs", Controller: new(bool)}
	*ds.Controller = true
	rs := metav1.OwnerReference{Kind: "ReplicaSet", Name: "web-1", Controller: new(bool)}
	*rs.Controller = true
	cases := []struct {
		name string
		pod  corev1.Pod
		want bool
	}{
		{"a ReplicaSet's pod", corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{rs}}}, true},
		{"a bare pod", corev1.Pod{}, true},
		{"a DaemonSet's pod", corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{ds}}}, false},
		{"a mirror pod", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{corev1.MirrorPodAnnotationKey: "x"}}}, false},
		{"a finished pod", corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodSucceeded}}, false},
	}
	for _, c := range cases {
		if got := evictable(&c.pod); got != c.want {
			t.Errorf("%s: evictable = %v, want %v", c.name, got, c.want)
		}
	}
}

// progressLog collects a drain's progress messages; the drain sends them from one goroutine per
// pod.
type progressLog struct {
	mu   sync.Mutex
	msgs []string
}

func (l *progressLog) add(m string) { l.mu.Lock(); l.msgs = append(l.msgs, m); l.mu.Unlock() }

func (l *progressLog) count(sub string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, m := range l.msgs {
		if strings.Contains(m, sub) {
			n++
		}
	}
	return n
}

var oldPool = Pool{Name: "old", Selector: map[string]string{DigitalOceanPoolLabel: "old"}}

// twoPools is a cluster of two nodes in pool old and one in pool new.
func twoPools(t *testing.T) (*fakeAPI, *Client) {
	f, c := newFakeAPI(t)
	f.node("old-1", map[string]string{DigitalOceanPoolLabel: "old"})
	f.node("old-2", map[string]string{DigitalOceanPoolLabel: "old"})
	f.node("new-1", map[string]string{DigitalOceanPoolLabel: "new"})
	return f, c
}

func TestADrainEvictsWhatKubectlWouldAndLeavesDaemonSetAndMirrorPods(t *testing.T) {
	f, c := twoPools(t)
	f.pod("old-1", "shop", "web-1", "ReplicaSet")
	f.pod("old-2", "shop", "web-2", "ReplicaSet")
	f.pod("old-2", "shop", "db-0", "StatefulSet")
	f.pod("old-1", "kube-system", "logs-a", "DaemonSet")
	f.daemonSets["kube-system/logs-a-owner"] = true
	f.pod("old-1", "kube-system", "etcd-old-1", "").Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
	f.pod("old-1", "batch", "done", "").Status.Phase = corev1.PodSucceeded
	f.pod("new-1", "shop", "web-3", "ReplicaSet")
	var log progressLog
	if err := c.Drain(context.Background(), oldPool, Options{Timeout: time.Minute, Progress: log.add}); err != nil {
		t.Fatalf("drain: %v\n%s", err, strings.Join(log.msgs, "\n"))
	}
	evicted, left, cordoned := f.state()
	slices.Sort(evicted)
	if want := []string{"batch/done", "shop/db-0", "shop/web-1", "shop/web-2"}; !slices.Equal(evicted, want) {
		t.Errorf("evicted %v, want %v", evicted, want)
	}
	if want := []string{"kube-system/etcd-old-1", "kube-system/logs-a", "shop/web-3"}; !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
	if want := map[string]bool{"old-1": true, "old-2": true, "new-1": false}; !maps.Equal(cordoned, want) {
		t.Errorf("cordoned %v, want %v", cordoned, want)
	}
	for _, want := range []string{"node old-1 cordoned", "draining node old-2", "evicting pod shop/web-1",
		"WARNING: ignoring DaemonSet-managed Pods: kube-system/logs-a", "pool old drained"} {
		if log.count(want) == 0 {
			t.Errorf("no %q in the progress:\n%s", want, strings.Join(log.msgs, "\n"))
		}
	}
}

func TestADrainRefusesPodsWhoseLossKubectlWouldRefuse(t *testing.T) {
	cases := []struct {
		name        string
		setup       func(f *fakeAPI)
		deleteEmpty bool
		refused     string // in the error; "" when the drain succeeds
	}{
		{"a pod with emptyDir data", func(f *fakeAPI) {
			f.pod("old-1", "shop", "cache", "ReplicaSet").Spec.Volumes = []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		}, false, "local storage (set the rollout's deleteEmptyDirData"},
		{"a pod with emptyDir data when its data may go", func(f *fakeAPI) {
			f.pod("old-1", "shop", "cache", "ReplicaSet").Spec.Volumes = []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		}, true, ""},
		{"a pod no controller recreates", func(f *fakeAPI) { f.pod("old-1", "shop", "cache", "") }, false, "declare no controller"},
		{"a pod no controller recreates, whatever deleteEmptyDirData says", func(f *fakeAPI) { f.pod("old-1", "shop", "cache", "") }, true, "declare no controller"},
		{"a pod of a DaemonSet that is gone", func(f *fakeAPI) { f.pod("old-1", "shop", "cache", "DaemonSet") }, false, "DaemonSet that no longer exists"},
		{"a finished pod without a controller", func(f *fakeAPI) {
			p := f.pod("old-1", "shop", "cache", "")
			p.Status.Phase = corev1.PodFailed
			p.Spec.Volumes = []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		}, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, c := twoPools(t)
			f.pod("old-1", "shop", "web-1", "ReplicaSet")
			tc.setup(f)
			err := c.Drain(context.Background(), oldPool, Options{Timeout: time.Minute, DeleteEmptyDirData: tc.deleteEmpty})
			evicted, _, cordoned := f.state()
			if tc.refused == "" {
				if err != nil || !slices.Contains(evicted, "shop/cache") {
					t.Fatalf("drain = %v, evicted %v; want shop/cache evicted", err, evicted)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.refused) || !strings.Contains(err.Error(), "shop/cache") {
				t.Fatalf("drain = %v; want a refusal naming shop/cache and %q", err, tc.refused)
			}
			// kubectl evicts nothing from a node with a pod it refuses.
			if len(evicted) != 0 {
				t.Errorf("evicted %v though the node holds a refused pod", evicted)
			}
			if !strings.Contains(err.Error(), "stay cordoned") || !cordoned["old-1"] || !cordoned["old-2"] {
				t.Errorf("after the refusal: %v, cordoned %v; want the old nodes to stay cordoned", err, cordoned)
			}
		})
	}
}

func TestAnEvictionAPDBRefusesIsAskedAgainUntilItIsAllowed(t *testing.T) {
	f, c := twoPools(t)
	f.pod("old-1", "shop", "web-1", "ReplicaSet")
	f.pod("old-2", "shop", "web-2", "ReplicaSet")
	f.refuse["shop/web-1"] = 3
	var log progressLog
	if err := c.Drain(context.Background(), oldPool, Options{Timeout: time.Minute, Progress: log.add}); err != nil {
		t.Fatalf("drain: %v", err)
	}
	if evicted, _, _ := f.state(); len(evicted) != 2 {
		t.Errorf("evicted %v, want both pods", evicted)
	}
	if n := log.count(`pods/"web-1" -n "shop" (will retry after`); n != 3 {
		t.Errorf("%d refusals in the progress, want 3:\n%s", n, strings.Join(log.msgs, "\n"))
	}
	if log.count("disruption budget") == 0 {
		t.Errorf("the progress does not say why the eviction waits:\n%s", strings.Join(log.msgs, "\n"))
	}
}

func TestADrainAPDBNeverAllowsStopsAtItsTimeoutNamingThePodsLeft(t *testing.T) {
	f, c := twoPools(t)
	f.pod("old-1", "shop", "web-1", "ReplicaSet")
	f.pod("old-1", "shop", "web-2", "ReplicaSet")
	f.refuse["shop/web-1"] = -1
	start := time.Now()
	err := c.Drain(context.Background(), oldPool, Options{Timeout: 300 * time.Millisecond})
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the drain stopped after %s, want about its 300 ms timeout", took)
	}
	if err == nil || !strings.Contains(err.Error(), "1 pods left (shop/web-1)") || !strings.Contains(err.Error(), "stay cordoned") {
		t.Fatalf("drain = %v; want it stopped naming shop/web-1 and the nodes cordoned", err)
	}
	if strings.Contains(err.Error(), fakeToken) {
		t.Errorf("the error holds the token: %v", err)
	}
	if _, _, cordoned := f.state(); !cordoned["old-1"] || !cordoned["old-2"] {
		t.Errorf("cordoned %v after the stopped drain, want the old nodes cordoned", cordoned)
	}
}

func TestUncordonMakesOnlyThePoolsNodesSchedulableAgain(t *testing.T) {
	f, c := twoPools(t)
	for _, n := range f.nodes {
		n.Spec.Unschedulable = true
	}
	if err := c.Uncordon(context.Background(), oldPool); err != nil {
		t.Fatal(err)
	}
	if _, _, cordoned := f.state(); !maps.Equal(cordoned, map[string]bool{"old-1": false, "old-2": false, "new-1": true}) {
		t.Errorf("cordoned %v after Uncordon of pool old", cordoned)
	}
	// A second Uncordon has nothing to change and patches nothing.
	before := len(f.patches)
	if err := c.Uncordon(context.Background(), oldPool); err != nil || len(f.patches) != before {
		t.Errorf("a second Uncordon: %v, %d patches more", err, len(f.patches)-before)
	}
}

func TestWaitReadyCountsOnlyReadySchedulableNodesOfThePool(t *testing.T) {
	f, c := twoPools(t)
	f.nodes["old-2"].Status.Conditions[0].Status = corev1.ConditionFalse
	if err := c.WaitReady(context.Background(), oldPool, 1, time.Second); err != nil {
		t.Errorf("one Ready node of one wanted: %v", err)
	}
	err := c.WaitReady(context.Background(), oldPool, 2, 50*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "1 of 2 wanted nodes Ready") {
		t.Errorf("one Ready node of two wanted: %v", err)
	}
	f.mu.Lock()
	f.nodes["old-1"].Spec.Unschedulable = true
	f.mu.Unlock()
	if err := c.WaitReady(context.Background(), oldPool, 1, 50*time.Millisecond); err == nil {
		t.Error("a cordoned node counted as Ready")
	}
}
