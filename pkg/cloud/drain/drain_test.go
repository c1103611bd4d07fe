package drain

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

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

func TestProgressComesOneLineAtATime(t *testing.T) {
	var got []string
	w := &lineWriter{progress: func(m string) { got = append(got, m) }}
	for _, chunk := range []string{"evicting pod a/", "b\nevicting pod a/c\n", "\n", "pod a/b evicted\n"} {
		if n, err := w.Write([]byte(chunk)); err != nil || n != len(chunk) {
			t.Fatalf("Write(%q) = %d, %v", chunk, n, err)
		}
	}
	want := []string{"evicting pod a/b", "evicting pod a/c", "pod a/b evicted"}
	if !slices.Equal(got, want) {
		t.Errorf("progress %q, want %q", got, want)
	}
	if n, err := (&lineWriter{}).Write([]byte("x\n")); n != 2 || err != nil {
		t.Errorf("a writer without Progress: %d, %v", n, err)
	}
}
