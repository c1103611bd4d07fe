//go:build e2e

package e2e_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Karpenter core with its own kwok provider, on the real control plane: what the clouds'
// provider adds to is proven to work here first. Ten pending pods get nodes, every NodeClaim
// names a Node kwok runs, and scaled to zero the nodes are consolidated away. Not in CI: the
// clouds' own provider runs the same flow there (karpenterflow_test.go), and Karpenter's kwok
// operator this needs took 20 minutes to build on a cold machine; make bench-karpenter runs it.
func TestKarpenterCoreProvisionsAndConsolidatesOnTheRealControlPlane(t *testing.T) {
	if os.Getenv(benchKarpenterEnv) == "" {
		t.Skip("Karpenter's own kwok provider: make bench-karpenter runs it (" + benchKarpenterEnv + "=1)")
	}
	start := time.Now()
	k := karpenterOnKwok(t)
	t.Logf("Karpenter up %s after the start", time.Since(start).Round(100*time.Millisecond))

	cs := k.clientset()
	pendingPods(t, cs, "shop", 10, "1", "1Gi")
	waitFor(t, 3*time.Minute, "10 pods running on Karpenter's nodes", func() bool { return runningPods(t, cs, "shop") == 10 })
	claims := k.nodeClaims()
	if len(claims) == 0 {
		t.Fatal("pods run, but no NodeClaim was made")
	}
	nodes, err := cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byProviderID := map[string]string{}
	for _, n := range nodes.Items {
		byProviderID[n.Spec.ProviderID] = n.Name
	}
	for _, c := range claims {
		if c.ProviderID == "" || byProviderID[c.ProviderID] != c.NodeName {
			t.Errorf("NodeClaim %s (providerID %q, node %q) names no Node of that providerID", c.Name, c.ProviderID, c.NodeName)
		}
	}
	t.Logf("10 pods on %d nodes (%v) %s after the start", len(claims), claims, time.Since(start).Round(100*time.Millisecond))

	scale(t, cs, "shop", 0)
	waitFor(t, 3*time.Minute, "every NodeClaim consolidated away", func() bool { return len(k.nodeClaims()) == 0 })
	waitFor(t, time.Minute, "their Nodes gone", func() bool {
		nodes, err := cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
		return err == nil && len(nodes.Items) == 0
	})
	t.Logf("consolidated %s after the start; memory %s", time.Since(start).Round(100*time.Millisecond), k.memory())
}

// karpenterOnKwok is the control plane with Karpenter core and its kwok provider running, a
// ready KWOKNodeClass "default" and a NodePool "default" of it.
func karpenterOnKwok(t *testing.T) *kube {
	t.Helper()
	k := newKubeCluster(t)
	binary := karpenterKwok(t)
	k.installCRDs(append(karpenterCoreCRDs(t),
		filepath.Join(karpenterCoreDir(t), "kwok", "apis", "crds", "karpenter.kwok.sh_kwoknodeclasses.yaml")))
	k.must("POST", "/apis/karpenter.kwok.sh/v1alpha1/kwoknodeclasses", map[string]any{
		"apiVersion": "karpenter.kwok.sh/v1alpha1", "kind": "KWOKNodeClass", "metadata": map[string]any{"name": "default"},
	})
	// The kwok provider has no NodeClass controller: the test says the class is ready.
	k.setReady("/apis/karpenter.kwok.sh/v1alpha1/kwoknodeclasses/default")
	k.must("POST", "/apis/karpenter.sh/v1/nodepools", nodePool("default", "karpenter.kwok.sh", "KWOKNodeClass", "default"))
	startOperator(t, k, "karpenter-kwok", binary)
	return k
}
