//go:build e2e

package e2e_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/pkg/cloud/drain"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/digitalocean/godo"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

// clientset is a client-go clientset of the control plane, as the admin.
func (k *kube) clientset() kubernetes.Interface {
	k.t.Helper()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(k.kubeconfig())
	if err != nil {
		k.t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		k.t.Fatal(err)
	}
	return cs
}

// workload creates, in namespace ns, a Deployment "web" of replicas pods and a
// PodDisruptionBudget on them with minAvailable, and waits until every replica is Ready and the
// budget has counted them.
func workload(t *testing.T, cs kubernetes.Interface, ns string, replicas, minAvailable int32) {
	t.Helper()
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"app": "web"}
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers:                    []corev1.Container{{Name: "web", Image: "example.invalid/web:1"}},
					TerminationGracePeriodSeconds: new(int64),
				},
			},
		},
	}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	min := intstr.FromInt32(minAvailable)
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: &min, Selector: &metav1.LabelSelector{MatchLabels: labels}},
	}
	if _, err := cs.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 2*time.Minute, fmt.Sprintf("%d Ready replicas counted by the PDB", replicas), func() bool {
		got, err := cs.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "web", metav1.GetOptions{})
		return err == nil && got.Status.ObservedGeneration == got.Generation && got.Status.CurrentHealthy == replicas
	})
}

// setMinAvailable changes the minimum of the workload's PDB, e.g. to let evictions go on one at a
// time where the test held them all.
func setMinAvailable(t *testing.T, cs kubernetes.Interface, ns string, minAvailable int32) {
	t.Helper()
	ctx := context.Background()
	pdb, err := cs.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := intstr.FromInt32(minAvailable)
	pdb.Spec.MinAvailable = &m
	if _, err := cs.PolicyV1().PodDisruptionBudgets(ns).Update(ctx, pdb, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not after %s: %s", timeout, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// podReady tells whether a pod counts for its PDB: Ready and not being deleted.
func podReady(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// readySampler counts a namespace's Ready pods at every change an informer sees (each watch
// event, in order, on a listener of its own), and keeps the lowest count.
type readySampler struct {
	mu     sync.Mutex
	ready  map[string]bool
	lowest int
	events int
}

func sampleReady(t *testing.T, cs kubernetes.Interface, ns string) *readySampler {
	t.Helper()
	s := &readySampler{ready: map[string]bool{}, lowest: -1}
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	inf := factory.Core().V1().Pods().Informer()
	record := func(obj any, gone bool) {
		pod, ok := obj.(*corev1.Pod)
		if !ok {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				pod, _ = tomb.Obj.(*corev1.Pod)
			}
		}
		if pod == nil {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if gone {
			delete(s.ready, pod.Name)
		} else {
			s.ready[pod.Name] = podReady(pod)
		}
		n := 0
		for _, r := range s.ready {
			if r {
				n++
			}
		}
		s.events++
		if s.lowest < 0 || n < s.lowest {
			s.lowest = n
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { record(obj, false) },
		UpdateFunc: func(_, obj any) { record(obj, false) },
		DeleteFunc: func(obj any) { record(obj, true) },
	}); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	factory.Start(stop)
	if !cache.WaitForCacheSync(stop, inf.HasSynced) {
		t.Fatal("the pod informer did not sync")
	}
	// The initial list arrives as adds, one at a time: the lowest counts from the full set.
	waitFor(t, 10*time.Second, "the sampler's initial list", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.ready) > 0
	})
	s.mu.Lock()
	s.lowest = 0
	for _, r := range s.ready {
		if r {
			s.lowest++
		}
	}
	s.events = 0
	s.mu.Unlock()
	return s
}

func (s *readySampler) result() (lowest, events int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lowest, s.events
}

// held fails t unless the sampler saw the rotation (some event) and never fewer than minimum
// Ready pods: what the PDB demands.
func (s *readySampler) held(t *testing.T, minimum int) {
	t.Helper()
	if lowest, events := s.result(); events == 0 || lowest < minimum {
		t.Errorf("Ready pods fell to %d during the rotation (%d events sampled); the PDB demands %d", lowest, events, minimum)
	}
}

// waitPodsOn waits until want of the namespace's Ready pods run on the nodes of the selector
// whose names start with prefix ("" for any): a workload moved onto a new pool.
func waitPodsOn(t *testing.T, cs kubernetes.Interface, ns string, selector map[string]string, prefix string, want int) {
	t.Helper()
	waitFor(t, time.Minute, fmt.Sprintf("%d Ready pods on the new pool", want), func() bool {
		nodes := nodesOf(t, cs, selector)
		n := 0
		for node, count := range podsOn(t, cs, ns) {
			if _, ok := nodes[node]; ok && strings.HasPrefix(node, prefix) {
				n += count
			}
		}
		return n == want
	})
}

// podsOn are the namespace's pods, Ready and not being deleted, by node.
func podsOn(t *testing.T, cs kubernetes.Interface, ns string) map[string]int {
	t.Helper()
	pods, err := cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for i := range pods.Items {
		if podReady(&pods.Items[i]) {
			out[pods.Items[i].Spec.NodeName]++
		}
	}
	return out
}

// nodesOf are the names of the pool's nodes and whether each is cordoned.
func nodesOf(t *testing.T, cs kubernetes.Interface, selector map[string]string) map[string]bool {
	t.Helper()
	var parts []string
	for k, v := range selector {
		parts = append(parts, k+"="+v)
	}
	list, err := cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: strings.Join(parts, ",")})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, n := range list.Items {
		out[n.Name] = n.Spec.Unschedulable
	}
	return out
}

func TestADrainUnderAPDBNeverDropsBelowItsMinimum(t *testing.T) {
	t.Parallel()
	start := time.Now()
	k := newKubeCluster(t)
	ctx := context.Background()
	godoClient, cid, c, old := drainClientOfADigitalOceanCluster(t, ctx, k)
	oldSel := old.Selector

	cs := k.clientset()
	workload(t, cs, "shop", 4, 3)
	oldNodes := nodesOf(t, cs, oldSel)
	if on := podsOn(t, cs, "shop"); len(on) == 0 {
		t.Fatal("no pod Ready")
	}
	sampler := sampleReady(t, cs, "shop")

	newSel := addASurgePool(t, ctx, godoClient, cid, c)

	var progress []string
	var mu sync.Mutex
	drainStart := time.Now()
	err := c.Drain(ctx, old, drain.Options{Timeout: 3 * time.Minute, Progress: func(msg string) {
		mu.Lock()
		progress = append(progress, msg)
		mu.Unlock()
	}})
	took := time.Since(drainStart)
	if err != nil {
		t.Fatalf("drain: %v\nprogress:\n%s", err, strings.Join(progress, "\n"))
	}
	// Replacements may still be starting when the last eviction finishes.
	newNodes := nodesOf(t, cs, newSel)
	waitFor(t, time.Minute, "4 Ready pods on the new pool", func() bool {
		n := 0
		for node, count := range podsOn(t, cs, "shop") {
			if _, ok := newNodes[node]; ok {
				n += count
			}
		}
		return n == 4
	})
	for node, count := range podsOn(t, cs, "shop") {
		if _, ok := oldNodes[node]; ok {
			t.Errorf("%d pods still on old node %s", count, node)
		}
	}
	for node, cordoned := range nodesOf(t, cs, oldSel) {
		if !cordoned {
			t.Errorf("old node %s is schedulable after the drain", node)
		}
	}
	lowest, events := sampler.result()
	t.Logf("drain took %s; %d pod events sampled, lowest Ready count %d; memory %s; test %s\nprogress:\n%s",
		took.Round(100*time.Millisecond), events, lowest, k.memory(), time.Since(start).Round(100*time.Millisecond), strings.Join(progress, "\n"))
	if events == 0 {
		t.Error("the sampler saw no pod event: it sampled nothing")
	}
	if lowest < 3 {
		t.Errorf("Ready pods fell to %d during the drain; the PDB demands 3", lowest)
	}
	if !slices.ContainsFunc(progress, func(m string) bool { return strings.Contains(m, "evicting pod shop/") }) {
		t.Errorf("no eviction in the progress:\n%s", strings.Join(progress, "\n"))
	}
}

// drainClientOfADigitalOceanCluster seeds a DigitalOcean cluster whose one pool, "old", is the
// control plane's nodes and whose kubeconfig is the control plane's, and makes the drain client
// from the kubeconfig the cloud gives, as a rotation does; it waits for the old pool's two nodes.
func drainClientOfADigitalOceanCluster(t *testing.T, ctx context.Context, k *kube) (*godo.Client, string, *drain.Client, drain.Pool) {
	t.Helper()
	// A DigitalOcean cluster whose one pool's nodes are the control plane's, and whose kubeconfig
	// is the control plane's: clusterplane reads it from the cloud, as it will in a rotation.
	do := fakedo.New(t, doToken)
	cid := do.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "nyc1", NodePools: []*godo.KubernetesNodePool{
		{Name: "old", Size: "s-2vcpu-4gb", Count: 2},
	}})
	do.SetNodes(cid, k.nodes())
	do.SetKubeconfig(cid, k.kubeconfig())
	godoClient := godo.NewFromToken(doToken)
	godoClient.BaseURL, _ = godoClient.BaseURL.Parse(do.URL() + "/")
	kc, _, err := godoClient.Kubernetes.GetKubeConfig(ctx, cid, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := drain.New(kc.KubeconfigYAML)
	if err != nil {
		t.Fatal(err)
	}
	oldSel, err := drain.PoolSelector("digitalocean", "old", "")
	if err != nil {
		t.Fatal(err)
	}
	old := drain.Pool{Name: "old", Selector: oldSel}
	if err := c.WaitReady(ctx, old, 2, time.Minute); err != nil {
		t.Fatal(err)
	}
	return godoClient, cid, c, old
}

// addASurgePool creates the surge pool "new" through the cloud's API, as a rotation does, waits
// for its two nodes, and says its selector.
func addASurgePool(t *testing.T, ctx context.Context, godoClient *godo.Client, cid string, c *drain.Client) map[string]string {
	t.Helper()
	p, _, err := godoClient.Kubernetes.CreateNodePool(ctx, cid, &godo.KubernetesNodePoolCreateRequest{Name: "new", Size: "s-4vcpu-8gb", Count: 2})
	if err != nil {
		t.Fatal(err)
	}
	newSel, _ := drain.PoolSelector("digitalocean", "new", p.ID)
	surge := drain.Pool{Name: "new", Selector: newSel}
	// The cloud reports the new nodes running after a poll; WaitReady is what a rotation polls.
	if _, _, err := godoClient.Kubernetes.GetNodePool(ctx, cid, p.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitReady(ctx, surge, 2, time.Minute); err != nil {
		t.Fatal(err)
	}
	return newSel
}

// Promise: rotation-stops-with-both-pools
func TestADrainAPDBNeverAllowsStopsAtItsTimeoutWithNodesCordoned(t *testing.T) {
	t.Parallel()
	start := time.Now()
	k := newKubeCluster(t)
	ctx := context.Background()
	// A Civo cluster this time: its pools are found by id.
	civo := fakecivo.New(t, civoToken, "")
	cid := civo.SeedCluster(civogo.KubernetesCluster{Name: "web", Pools: []civogo.KubernetesPool{{ID: "pool-old", Count: 2, Size: "g4s.kube.medium"}}})
	civo.SetNodes(cid, k.nodes())
	civo.SetKubeconfig(cid, k.kubeconfig())
	cl, ok := civo.Cluster(cid)
	if !ok {
		t.Fatal("the seeded cluster is gone")
	}
	c, err := drain.New([]byte(cl.KubeConfig))
	if err != nil {
		t.Fatal(err)
	}
	sel, err := drain.PoolSelector("civo", "", "pool-old")
	if err != nil {
		t.Fatal(err)
	}
	old := drain.Pool{Name: "pool-old", Selector: sel}
	if err := c.WaitReady(ctx, old, 2, time.Minute); err != nil {
		t.Fatal(err)
	}
	cs := k.clientset()
	// minAvailable equal to the replicas: no eviction is ever allowed.
	workload(t, cs, "shop", 2, 2)
	before := podsOn(t, cs, "shop")

	drainStart := time.Now()
	err = c.Drain(ctx, old, drain.Options{Timeout: 12 * time.Second})
	took := time.Since(drainStart)
	if err == nil {
		t.Fatal("the drain finished though the PDB allows no eviction")
	}
	t.Logf("drain stopped after %s: %v; memory %s; test %s", took.Round(100*time.Millisecond), err, k.memory(), time.Since(start).Round(100*time.Millisecond))
	if took < 12*time.Second || took > 45*time.Second {
		t.Errorf("the drain stopped after %s, want about its 12 s timeout", took)
	}
	pods, _ := cs.CoreV1().Pods("shop").List(ctx, metav1.ListOptions{})
	for _, p := range pods.Items {
		if !strings.Contains(err.Error(), "shop/"+p.Name) {
			t.Errorf("the error does not name pod shop/%s left: %v", p.Name, err)
		}
	}
	if !strings.Contains(err.Error(), "stay cordoned") {
		t.Errorf("the error does not say the nodes stay cordoned: %v", err)
	}
	for node, cordoned := range nodesOf(t, cs, sel) {
		if !cordoned {
			t.Errorf("node %s was uncordoned after the stopped drain", node)
		}
	}
	if after := podsOn(t, cs, "shop"); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the workload moved: Ready pods by node %v before, %v after", before, after)
	}
	// A rollback makes the pool schedulable again.
	if err := c.Uncordon(ctx, old); err != nil {
		t.Fatal(err)
	}
	for node, cordoned := range nodesOf(t, cs, sel) {
		if cordoned {
			t.Errorf("node %s still cordoned after Uncordon", node)
		}
	}
}
