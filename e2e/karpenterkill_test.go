//go:build e2e

package e2e_test

import (
	"slices"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	corev1 "k8s.io/api/core/v1"
)

// The operator killed with kill -9 while it creates nodes, then started again: no node is made
// twice, none stays without a NodeClaim, and every pod runs.
func TestKarpenterKilledDuringACreateLeavesNoNodeTwiceNorUnclaimed(t *testing.T) {
	t.Parallel() // mostly waiting on Karpenter's and the clouds' timers: beside the others, not after them
	for _, cloud := range karpenterClouds {
		t.Run(cloud.name, func(t *testing.T) {
			t.Parallel()
			k := newKubeCluster(t)
			c := cloud.setup(t, k)
			op, env := karpenterOn(t, k, c)
			cs := k.clientset()
			wrote := make(chan struct{}, 1)
			c.onWrite(func(fakecloud.Request) {
				select {
				case wrote <- struct{}{}:
				default:
				}
			})
			pendingPods(t, cs, "shop", 10, "1", "1Gi")
			select {
			case <-wrote:
			case <-time.After(3 * time.Minute):
				t.Fatal("the provider wrote no pool in 3 minutes")
			}
			op.kill()
			c.onWrite(func(fakecloud.Request) {})
			startOperator(t, k, "karpenter-clusterplane-again", karpenterProvider(t), env...)
			waitFor(t, 5*time.Minute, "10 pods running after the restart", func() bool { return runningPods(t, cs, "shop") == 10 })
			waitFor(t, 5*time.Minute, "every pool node claimed once, none left over", func() bool {
				_, ids := c.karpenterPools()
				return slices.Equal(ids, claimedProviderIDs(k.nodeClaims())) && !slices.ContainsFunc(ids, func(id string) bool { return id == "" })
			})
			c.declaredUntouched(t)
		})
	}
}

// A NodeClass that names a cluster the cloud does not have, or only sizes the region does not
// offer, says so in its conditions.
func TestKarpenterNodeClassConditionsSayWhatIsMissing(t *testing.T) {
	t.Parallel() // mostly waiting on Karpenter's and the clouds' timers: beside the others, not after them
	for _, cloud := range karpenterClouds {
		t.Run(cloud.name, func(t *testing.T) {
			t.Parallel()
			k := newKubeCluster(t)
			c := cloud.setup(t, k)
			karpenterOn(t, k, c)
			cases := []struct {
				name, condition string
				spec            map[string]any
			}{
				{"nocluster", "ClusterReady", map[string]any{"cluster": map[string]any{"id": "no-such-cluster"}}},
				{"nosize", "SizesResolved", map[string]any{"cluster": map[string]any{"id": c.clusterID},
					"sizeSelectorTerms": []any{map[string]any{"names": []any{"no-such-size"}}}}},
			}
			for _, tc := range cases {
				k.must("POST", "/apis/karpenter.clusterplane.dev/v1/"+c.plural, map[string]any{
					"apiVersion": "karpenter.clusterplane.dev/v1", "kind": c.kind, "metadata": map[string]any{"name": tc.name}, "spec": tc.spec})
				waitFor(t, 2*time.Minute, tc.name+": "+tc.condition+" False with a message and Ready False", func() bool {
					o := k.must("GET", "/apis/karpenter.clusterplane.dev/v1/"+c.plural+"/"+tc.name, nil)
					return conditionFalseSaying(o, tc.condition) && conditionFalseSaying(o, "Ready")
				})
			}
		})
	}
}

// conditionFalseSaying tells whether o's status holds condition typ False with a message.
func conditionFalseSaying(o map[string]any, typ string) bool {
	status, _ := o["status"].(map[string]any)
	conds, _ := status["conditions"].([]any)
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == typ && m["status"] == string(corev1.ConditionFalse) && m["message"] != "" {
			return true
		}
	}
	return false
}
