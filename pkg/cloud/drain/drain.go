// Package drain moves the workloads off one node pool of a running Kubernetes cluster, as a
// rotation needs before the old pool is deleted: wait for the new pool's nodes, cordon the old
// pool's, evict its pods through the eviction API so that PodDisruptionBudgets hold. It uses
// k8s.io/kubectl/pkg/drain, what `kubectl drain` itself runs, so that the behaviour users know
// (DaemonSets left, mirror pods left, the 5 s retry while a PDB says no) is what they get.
//
// The kubeconfig stays in memory: it is parsed from bytes and never written anywhere, and no
// error or progress message repeats it.
package drain

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	kubedrain "k8s.io/kubectl/pkg/drain"
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
	cs kubernetes.Interface
	// poll is how often WaitReady looks at the nodes.
	poll time.Duration
}

// New is a client of the cluster the kubeconfig's current context names.
func New(kubeconfig []byte) (*Client, error) {
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		// The parser's message may quote the document; say only that it did not parse.
		return nil, errors.New("the cluster's kubeconfig does not parse as a kubeconfig")
	}
	cfg.UserAgent = "clusterplane"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, errors.Wrap(err, "a Kubernetes client for the cluster")
	}
	return NewForClientset(cs), nil
}

// NewForClientset is a client over an existing clientset (a fake one in unit tests).
func NewForClientset(cs kubernetes.Interface) *Client {
	return &Client{cs: cs, poll: time.Second}
}

// nodes are the pool's nodes, sorted by name.
func (c *Client) nodes(ctx context.Context, p Pool) ([]corev1.Node, error) {
	if len(p.Selector) == 0 {
		return nil, errors.Errorf("pool %s has no node selector: it would match every node of the cluster", p.Name)
	}
	list, err := c.cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(p.Selector).String()})
	if err != nil {
		return nil, errors.Wrapf(err, "list the nodes of pool %s", p.Name)
	}
	nodes := list.Items
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	return nodes, nil
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

// helper is kubectl's drain helper for this client, its output going to progress line by line.
func (c *Client) helper(ctx context.Context, o Options) *kubedrain.Helper {
	w := &lineWriter{progress: o.Progress}
	return &kubedrain.Helper{
		Ctx:    ctx,
		Client: c.cs,
		// Pods no controller recreates stop the drain, as kubectl's default: evicting them loses them.
		Force: false,
		// Each pod's own terminationGracePeriodSeconds.
		GracePeriodSeconds:  -1,
		IgnoreAllDaemonSets: true,
		DeleteEmptyDirData:  o.DeleteEmptyDirData,
		Timeout:             o.Timeout,
		Out:                 w,
		ErrOut:              w,
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
	h := c.helper(ctx, o)
	for i := range nodes {
		if err := kubedrain.RunCordonOrUncordon(h, &nodes[i], desired); err != nil {
			return errors.Wrapf(err, "%s node %s of pool %s", verb, nodes[i].Name, p.Name)
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
	var failure error
	for _, n := range nodes {
		opts := o
		if o.Timeout > 0 {
			// One budget for the whole pool, not one per node.
			opts.Timeout = o.Timeout - time.Since(start)
			if opts.Timeout <= 0 {
				failure = errors.New("timed out")
				break
			}
		}
		if o.Progress != nil {
			o.Progress(fmt.Sprintf("draining node %s", n.Name))
		}
		if err := kubedrain.RunNodeDrain(c.helper(ctx, opts), n.Name); err != nil {
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

// podsLeft are the pods on the nodes a drain would still evict, as namespace/name, sorted.
func (c *Client) podsLeft(ctx context.Context, nodes []corev1.Node) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var left []string
	for _, n := range nodes {
		list, err := c.cs.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{
			FieldSelector: fields.OneTermEqualSelector("spec.nodeName", n.Name).String(),
		})
		if err != nil {
			return nil, errors.Wrapf(err, "list the pods of node %s", n.Name)
		}
		for _, pod := range list.Items {
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

// lineWriter hands the drain helper's output to Progress one line at a time.
type lineWriter struct {
	mu       sync.Mutex
	progress func(string)
	buf      bytes.Buffer
}

func (w *lineWriter) Write(b []byte) (int, error) {
	if w.progress == nil {
		return len(b), nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(b)
	for {
		line, err := w.buf.ReadString('\n')
		if err != nil {
			// No newline yet: keep the start of the line for the next write.
			w.buf.Reset()
			w.buf.WriteString(line)
			return len(b), nil
		}
		if line = strings.TrimSpace(line); line != "" {
			w.progress(line)
		}
	}
}
