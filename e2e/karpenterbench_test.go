//go:build e2e

package e2e_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// benchKarpenterEnv turns the Karpenter figures on: make bench-karpenter sets it. They take
// minutes of a busy machine, so make e2e leaves them out.
const benchKarpenterEnv = "CLUSTERPLANE_BENCH_KARPENTER"

// Figures for bench/README.md, printed as BENCH lines: how long a pending pod waits for a Ready
// node, and what 100 pending pods cost (time, NodeClaims, node creates). Karpenter core with its
// kwok provider on the real control plane: the floor the clouds' provider adds its requests to.
func TestKarpenterBenchPendingPodToReadyNode(t *testing.T) {
	if os.Getenv(benchKarpenterEnv) == "" {
		t.Skip("a benchmark: make bench-karpenter runs it (" + benchKarpenterEnv + "=1)")
	}
	rounds := 5
	k := karpenterOnKwok(t)
	cs := k.clientset()
	pendingPods(t, cs, "bench", 0, "1", "1Gi")
	var took []time.Duration
	for range rounds {
		start := time.Now()
		scale(t, cs, "bench", 1)
		waitFor(t, 3*time.Minute, "the pod running on a new node", func() bool { return runningPods(t, cs, "bench") == 1 })
		took = append(took, time.Since(start))
		scale(t, cs, "bench", 0)
		waitFor(t, 3*time.Minute, "the node consolidated away", func() bool { return len(k.nodeClaims()) == 0 })
	}
	slices.Sort(took)
	fmt.Printf("BENCH karpenter-kwok pending-pod-to-ready-node rounds=%d min=%s median=%s max=%s\n",
		rounds, took[0].Round(10*time.Millisecond), took[rounds/2].Round(10*time.Millisecond), took[rounds-1].Round(10*time.Millisecond))

	start := time.Now()
	scale(t, cs, "bench", 100)
	waitFor(t, 5*time.Minute, "100 pods running", func() bool { return runningPods(t, cs, "bench") == 100 })
	took100 := time.Since(start)
	claims := k.nodeClaims()
	nodes, err := cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	for _, c := range claims {
		types[c.InstanceType]++
	}
	fmt.Printf("BENCH karpenter-kwok 100-pending-pods running-after=%s nodeclaims=%d nodes=%d types=%v memory=%q\n",
		took100.Round(10*time.Millisecond), len(claims), len(nodes.Items), types, k.memory())
}
