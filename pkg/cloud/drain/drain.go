// Package drain moves the workloads off one node pool of a running Kubernetes cluster, as a
// rotation needs before the old pool is deleted: wait for the new pool's nodes, cordon the old
// pool's, evict its pods through the eviction API so that PodDisruptionBudgets hold. It does what
// `kubectl drain --ignore-daemonsets` does (DaemonSet pods left, mirror pods left, pods no
// controller recreates and pods with emptyDir data refused, the 5 s retry while a PDB says no),
// over the small REST client of pkg/cloud/kube rather than kubectl's library, which with
// client-go's clientset more than doubled the binary.
//
// The kubeconfig stays in memory: it is parsed from bytes and never written anywhere, and no
// error or progress message repeats it.
package drain

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clusterplane/clusterplane/pkg/cloud/kube"
)

// Pool is one node pool's nodes in a cluster, found by node labels.
type Pool struct {
	// Name is the pool's name, for messages.
	Name string
	// Selector is the node labels every node of the pool carries (PoolSelector). It may not be
	// empty: an empty selector would match every node of the cluster.
	Selector map[string]string
}

// Options say how a drain goes.
type Options struct {
	// Timeout bounds the whole drain, every node of the pool together; 0 waits for ever.
	Timeout time.Duration
	// DeleteEmptyDirData lets pods with emptyDir volumes go (their data is lost), as kubectl's
	// --delete-emptydir-data; without it such pods stop the drain.
	DeleteEmptyDirData bool
	// Progress, when set, is told each step: nodes cordoned, pods evicted, evictions a PDB
	// refused (they are retried). Messages name nodes and pods, never credentials.
	Progress func(msg string)
}

// Client talks to one cluster's API server with a kubeconfig held in memory only.
type Client struct {
	kube *kube.Client
	// poll is how often WaitReady looks at the nodes and a drain at the pods it evicted.
	poll time.Duration
	// retry is how long an eviction a PodDisruptionBudget refused waits before it is asked again:
	// kubectl's 5 s.
	retry time.Duration
}

// New is a client of the cluster the kubeconfig's current context names.
func New(kubeconfig []byte) (*Client, error) {
	k, err := kube.New(kubeconfig)
	if err != nil {
		// kube's messages never quote the document.
		return nil, errors.Wrap(err, "a Kubernetes client for the cluster")
	}
	return &Client{kube: k, poll: time.Second, retry: 5 * time.Second}, nil
}

// nodes are the pool's nodes, sorted by name.
func (c *Client) nodes(ctx context.Context, p Pool) ([]corev1.Node, error) {
	if len(p.Selector) == 0 {
		return nil, errors.Errorf("pool %s has no node selector: it would match every node of the cluster", p.Name)
	}
	raw, err := c.kube.List(ctx, "/api/v1/nodes", url.Values{"labelSelector": {kube.Selector(p.Selector)}})
	if err != nil {
		return nil, errors.Wrapf(err, "list the nodes of pool %s", p.Name)
	}
	nodes := make([]corev1.Node, len(raw))
	for i := range raw {
		if err := json.Unmarshal(raw[i], &nodes[i]); err != nil {
			return nil, errors.Wrapf(err, "read the nodes of pool %s", p.Name)
		}
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	return nodes, nil
}

// podsOn are the pods the API server places on the node, every namespace.
func (c *Client) podsOn(ctx context.Context, node string) ([]corev1.Pod, error) {
	raw, err := c.kube.List(ctx, "/api/v1/pods", url.Values{"fieldSelector": {kube.Selector(map[string]string{"spec.nodeName": node})}})
	if err != nil {
		return nil, errors.Wrapf(err, "list the pods of node %s", node)
	}
	pods := make([]corev1.Pod, len(raw))
	for i := range raw {
		if err := json.Unmarshal(raw[i], &pods[i]); err != nil {
			return nil, errors.Wrapf(err, "read the pods of node %s", node)
		}
	}
	return pods, nil
}

// ready tells whether the node's kubelet reports it Ready.
func ready(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// WaitReady waits until at least count nodes of the pool are Ready and schedulable, or the
// timeout passes (0: only ctx bounds it).
func (c *Client) WaitReady(ctx context.Context, p Pool, count int, timeout time.Duration) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	seen, total := 0, 0
	for {
		nodes, err := c.nodes(ctx, p)
		if err != nil && ctx.Err() == nil {
			return err
		}
		if err == nil {
			seen, total = 0, len(nodes)
			for i := range nodes {
				if ready(&nodes[i]) && !nodes[i].Spec.Unschedulable {
					seen++
				}
			}
			if seen >= count {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return errors.Errorf("pool %s: %d of %d wanted nodes Ready after %s (%d nodes registered)",
				p.Name, seen, count, timeout, total)
		case <-time.After(c.poll):
		}
	}
}

// Cordon marks every node of the pool unschedulable, so that nothing new lands there.
func (c *Client) Cordon(ctx context.Context, p Pool) error {
	return c.cordon(ctx, p, true, Options{})
}

// Uncordon makes every node of the pool schedulable again (a rollback).
func (c *Client) Uncordon(ctx context.Context, p Pool) error {
	return c.cordon(ctx, p, false, Options{})
}

func (c *Client) cordon(ctx context.Context, p Pool, desired bool, o Options) error {
	nodes, err := c.nodes(ctx, p)
	if err != nil {
		return err
	}
	verb := map[bool]string{true: "cordon", false: "uncordon"}[desired]
	// Uncordoning removes the field, as kubectl's patch does: false is its default.
	patch := []byte(`{"spec":{"unschedulable":true}}`)
	if !desired {
		patch = []byte(`{"spec":{"unschedulable":null}}`)
	}
	for i := range nodes {
		// A node already as wanted is left alone, as kubectl does.
		if nodes[i].Spec.Unschedulable != desired {
			path := "/api/v1/nodes/" + url.PathEscape(nodes[i].Name)
			if err := c.kube.Patch(ctx, path, kube.StrategicMergePatch, patch, nil); err != nil {
				return errors.Wrapf(err, "%s node %s of pool %s", verb, nodes[i].Name, p.Name)
			}
		}
		if o.Progress != nil {
			o.Progress(fmt.Sprintf("node %s %sed", nodes[i].Name, verb))
		}
	}
	return nil
}

// Drain cordons, then evicts every pod but DaemonSets' and mirror pods through the eviction API,
// PodDisruptionBudgets respected, until Timeout: on timeout it returns an error naming the pods
// left and leaves the nodes cordoned.
func (c *Client) Drain(ctx context.Context, p Pool, o Options) error {
	start := time.Now()
	// Every node first: a pod evicted from the first node must not land on the second.
	if err := c.cordon(ctx, p, true, o); err != nil {
		return err
	}
	nodes, err := c.nodes(ctx, p)
	if err != nil {
		return err
	}
	// One budget for the whole pool, not one per node.
	dctx := ctx
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		dctx, cancel = context.WithDeadline(ctx, start.Add(o.Timeout))
		defer cancel()
	}
	var failure error
	for _, n := range nodes {
		if dctx.Err() != nil {
			failure = errors.New("timed out")
			break
		}
		if o.Progress != nil {
			o.Progress(fmt.Sprintf("draining node %s", n.Name))
		}
		if err := c.drainNode(dctx, n.Name, o); err != nil {
			failure = err
			break
		}
	}
	if failure == nil {
		if o.Progress != nil {
			o.Progress(fmt.Sprintf("pool %s drained in %s", p.Name, time.Since(start).Round(time.Second)))
		}
		return nil
	}
	// Name what is left, so that the user sees which workload holds the drain; the nodes stay
	// cordoned so that nothing moves back.
	left, err := c.podsLeft(context.WithoutCancel(ctx), nodes)
	if err != nil {
		return errors.Wrapf(failure, "drain pool %s (the pods left could not be listed: %v); its nodes stay cordoned", p.Name, err)
	}
	return errors.Wrapf(failure, "drain pool %s stopped after %s with %d pods left (%s); its nodes stay cordoned",
		p.Name, time.Since(start).Round(time.Second), len(left), strings.Join(left, ", "))
}

// Why a pod stops a drain, or is left by it, in kubectl's words.
const (
	daemonSetWarning = "ignoring DaemonSet-managed Pods"
	localStorage     = "Pods with local storage (set the rollout's deleteEmptyDirData to let them go; their data is lost)"
	unmanaged        = "Pods that declare no controller (nothing would recreate them; delete them by hand)"
)

// podsToEvict sorts the node's pods as kubectl's drain does: DaemonSet pods are left with a
// warning, mirror pods left, and pods with emptyDir data (unless DeleteEmptyDirData) or without
// a controller are refused: their names come back by reason and nothing is evicted.
func (c *Client) podsToEvict(ctx context.Context, pods []corev1.Pod, o Options) (evict []corev1.Pod, warnings []string, refused map[string][]string, err error) {
	refused = map[string][]string{}
	for _, pod := range pods {
		name := pod.Namespace + "/" + pod.Name
		finished := pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
		ref := metav1.GetControllerOf(&pod)
		if ref != nil && ref.Kind == "DaemonSet" && ref.APIVersion == "apps/v1" && !finished {
			// The DaemonSet would put it straight back; kubectl checks that it still exists, as a pod
			// it no longer owns would be lost by leaving it as much as by evicting it.
			path := "/apis/apps/v1/namespaces/" + url.PathEscape(pod.Namespace) + "/daemonsets/" + url.PathEscape(ref.Name)
			if err := c.kube.Get(ctx, path, nil); err != nil {
				if !kube.IsNotFound(err) {
					return nil, nil, nil, errors.Wrapf(err, "read the DaemonSet of pod %s", name)
				}
				refused["Pods of a DaemonSet that no longer exists"] = append(refused["Pods of a DaemonSet that no longer exists"], name)
				continue
			}
			warnings = append(warnings, name)
			continue
		}
		if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
			continue
		}
		if !finished && !o.DeleteEmptyDirData && slices.ContainsFunc(pod.Spec.Volumes, func(v corev1.Volume) bool { return v.EmptyDir != nil }) {
			refused[localStorage] = append(refused[localStorage], name)
			continue
		}
		if !finished && ref == nil {
			refused[unmanaged] = append(refused[unmanaged], name)
			continue
		}
		evict = append(evict, pod)
	}
	return evict, warnings, refused, nil
}

// drainNode evicts the node's pods, all at once, each retried while a PodDisruptionBudget says
// no, and waits until they are gone; ctx bounds it.
func (c *Client) drainNode(ctx context.Context, node string, o Options) error {
	pods, err := c.podsOn(ctx, node)
	if err != nil {
		return err
	}
	evict, warnings, refused, err := c.podsToEvict(ctx, pods, o)
	if err != nil {
		return err
	}
	if len(refused) > 0 {
		var msgs []string
		for reason, names := range refused {
			msgs = append(msgs, fmt.Sprintf("cannot delete %s: %s", reason, strings.Join(names, ", ")))
		}
		slices.Sort(msgs)
		return errors.Errorf("node %s: %s", node, strings.Join(msgs, "; "))
	}
	progress := func(format string, args ...any) {
		if o.Progress != nil {
			o.Progress(fmt.Sprintf(format, args...))
		}
	}
	if len(warnings) > 0 {
		progress("WARNING: %s: %s", daemonSetWarning, strings.Join(warnings, ", "))
	}
	errs := make([]error, len(evict))
	var wg sync.WaitGroup
	for i := range evict {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.evict(ctx, &evict[i], progress)
		}()
	}
	wg.Wait()
	var msgs []string
	for _, err := range errs {
		if err != nil {
			msgs = append(msgs, err.Error())
		}
	}
	if len(msgs) > 0 {
		return errors.New(strings.Join(msgs, "; "))
	}
	return nil
}

// evict asks the eviction API to evict the pod until it agrees (a 429 is a PodDisruptionBudget
// saying not now: asked again every retry), then waits until the pod is gone.
func (c *Client) evict(ctx context.Context, pod *corev1.Pod, progress func(string, ...any)) error {
	path := "/api/v1/namespaces/" + url.PathEscape(pod.Namespace) + "/pods/" + url.PathEscape(pod.Name)
	eviction := map[string]any{
		"apiVersion": "policy/v1",
		"kind":       "Eviction",
		"metadata":   map[string]string{"name": pod.Name, "namespace": pod.Namespace},
	}
	for {
		if ctx.Err() != nil {
			return errors.Errorf("error when evicting pods/%q -n %q: the drain's timeout passed", pod.Name, pod.Namespace)
		}
		progress("evicting pod %s/%s", pod.Namespace, pod.Name)
		err := c.kube.Post(ctx, path+"/eviction", eviction, nil)
		if err == nil {
			break
		}
		if kube.IsNotFound(err) {
			return nil // gone already
		}
		terminating := kube.HasCause(err, string(corev1.NamespaceTerminatingCause))
		if terminating && pod.DeletionTimestamp != nil {
			// The namespace is going and the pod with it: no eviction will ever succeed, the
			// deletion will.
			break
		}
		if !kube.IsTooManyRequests(err) && !(kube.Code(err) == 403 && terminating) {
			return errors.Errorf("error when evicting pods/%q -n %q: %v", pod.Name, pod.Namespace, err)
		}
		progress("error when evicting pods/%q -n %q (will retry after %s): %s", pod.Name, pod.Namespace, c.retry, message(err))
		select {
		case <-ctx.Done():
		case <-time.After(c.retry):
		}
	}
	// Evicted: wait until it is gone, or replaced by a pod of the same name (a StatefulSet's).
	for {
		var now corev1.Pod
		err := c.kube.Get(ctx, path, &now)
		if kube.IsNotFound(err) || (err == nil && now.UID != pod.UID) {
			progress("pod %s/%s evicted", pod.Namespace, pod.Name)
			return nil
		}
		if err != nil && ctx.Err() == nil {
			return errors.Wrapf(err, "wait for pod %s/%s to go", pod.Namespace, pod.Name)
		}
		select {
		case <-ctx.Done():
			return errors.Errorf("error when waiting for pod %q in namespace %q to terminate: the drain's timeout passed", pod.Name, pod.Namespace)
		case <-time.After(c.poll):
		}
	}
}

// message is what the API server said, without the request line.
func message(err error) string {
	var se *kube.StatusError
	if errors.As(err, &se) && se.API.Message != "" {
		return se.API.Message
	}
	return err.Error()
}

// podsLeft are the pods on the nodes a drain would still evict, as namespace/name, sorted.
func (c *Client) podsLeft(ctx context.Context, nodes []corev1.Node) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var left []string
	for _, n := range nodes {
		pods, err := c.podsOn(ctx, n.Name)
		if err != nil {
			return nil, err
		}
		for _, pod := range pods {
			if evictable(&pod) {
				left = append(left, pod.Namespace+"/"+pod.Name)
			}
		}
	}
	slices.Sort(left)
	return left, nil
}

// evictable tells whether a drain moves the pod: not one a DaemonSet runs on every node, not a
// mirror of a static pod, not one that has finished.
func evictable(pod *corev1.Pod) bool {
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return false
	}
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return false
	}
	if ref := metav1.GetControllerOf(pod); ref != nil && ref.Kind == "DaemonSet" {
		return false
	}
	return true
}
