//go:build e2e

package e2e_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/digitalocean/godo"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// kubeNode is what the test reads of a Node: what Karpenter matches a NodeClaim by and fits pods
// to.
type kubeNode struct {
	providerID, cpu, memory string
	taints                  []string
	ready                   bool
}

// kubeNodesWith are the control plane's Nodes whose providerID starts with prefix, by name.
func kubeNodesWith(t *testing.T, cs kubernetes.Interface, prefix string) map[string]kubeNode {
	t.Helper()
	list, err := cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]kubeNode{}
	for _, n := range list.Items {
		if !strings.HasPrefix(n.Spec.ProviderID, prefix) {
			continue
		}
		kn := kubeNode{providerID: n.Spec.ProviderID, cpu: n.Status.Capacity.Cpu().String(), memory: n.Status.Capacity.Memory().String()}
		for _, tt := range n.Spec.Taints {
			kn.taints = append(kn.taints, tt.Key+"="+tt.Value+":"+string(tt.Effect))
		}
		for _, c := range n.Status.Conditions {
			kn.ready = kn.ready || (c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue)
		}
		out[n.Name] = kn
	}
	return out
}

// providerIDsOf are the nodes' providerIDs, sorted.
func providerIDsOf(nodes map[string]kubeNode) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.providerID)
	}
	slices.Sort(out)
	return out
}

// The loopback clouds' hook on the real control plane: each node a pool gets becomes a Node kwok
// makes Ready, under the providerID the cloud's controller manager would set, with the pool's
// taints and the size's capacity, and goes when the pool shrinks. Karpenter's provider stands on
// exactly this.
func TestTheLoopbackCloudsRegisterEachPoolNodeAsANodeOfTheControlPlane(t *testing.T) {
	t.Parallel() // mostly waiting on Karpenter's and the clouds' timers: beside the others, not after them
	k := newKubeCluster(t)
	cs := k.clientset()
	ctx := context.Background()
	const taint = "karpenter.sh/unregistered=:NoExecute"

	do := fakedo.New(t, doToken)
	doCluster := do.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "nyc1"})
	do.SetNodes(doCluster, k.nodes())
	dc := godo.NewFromToken(doToken)
	dc.BaseURL, _ = dc.BaseURL.Parse(do.URL() + "/")
	pool, _, err := dc.Kubernetes.CreateNodePool(ctx, doCluster, &godo.KubernetesNodePoolCreateRequest{
		Name: "k", Size: "c-4", Count: 3, Taints: []godo.Taint{{Key: "karpenter.sh/unregistered", Effect: "NoExecute"}}})
	if err != nil {
		t.Fatal(err)
	}
	doIDs := func() []string {
		p, _, err := dc.Kubernetes.GetNodePool(ctx, doCluster, pool.ID) // a read also finishes provisioning
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, n := range p.Nodes {
			ids = append(ids, "digitalocean://"+n.DropletID)
		}
		slices.Sort(ids)
		return ids
	}

	civo := fakecivo.New(t, civoToken, "")
	civoCluster := civo.SeedCluster(civogo.KubernetesCluster{Name: "web", Pools: []civogo.KubernetesPool{
		{ID: "k", Count: 2, Size: "g4s.kube.large", Taints: []corev1.Taint{{Key: "karpenter.sh/unregistered", Effect: corev1.TaintEffectNoExecute}}},
	}})
	civo.SetNodes(civoCluster, k.nodes())
	cc, err := civogo.NewClientWithURL(civoToken, civo.URL(), "lon1")
	if err != nil {
		t.Fatal(err)
	}
	civoIDs := func() []string {
		p, err := cc.GetKubernetesClusterPool(civoCluster, "k")
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, in := range p.Instances {
			ids = append(ids, "civo://"+in.ID)
		}
		slices.Sort(ids)
		return ids
	}

	clouds := []struct {
		name, prefix, cpu, memory string
		ids                       func() []string
		resize                    func(count int)
	}{
		{"DigitalOcean", "digitalocean://", "4", "8Gi", doIDs, func(count int) {
			if _, _, err := dc.Kubernetes.UpdateNodePool(ctx, doCluster, pool.ID, &godo.KubernetesNodePoolUpdateRequest{Name: "k", Count: godo.PtrTo(count)}); err != nil {
				t.Fatal(err)
			}
		}},
		{"Civo", "civo://", "4", "8Gi", civoIDs, func(count int) {
			if _, err := cc.UpdateKubernetesClusterPool(civoCluster, "k", &civogo.KubernetesClusterPoolUpdateConfig{Count: new(count), Region: "lon1",
				Taints: []corev1.Taint{{Key: "karpenter.sh/unregistered", Effect: corev1.TaintEffectNoExecute}}}); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range clouds {
		want := c.ids()
		waitFor(t, time.Minute, c.name+"'s pool nodes registered and Ready", func() bool {
			nodes := kubeNodesWith(t, cs, c.prefix)
			for _, n := range nodes {
				if !n.ready {
					return false
				}
			}
			return slices.Equal(providerIDsOf(nodes), want)
		})
		for name, n := range kubeNodesWith(t, cs, c.prefix) {
			if n.cpu != c.cpu || n.memory != c.memory || !slices.Contains(n.taints, taint) {
				t.Errorf("%s node %s: %s CPU, %s memory, taints %q; want %s, %s and %q among them", c.name, name, n.cpu, n.memory, n.taints, c.cpu, c.memory, taint)
			}
		}
		c.resize(1)
		want = c.ids()
		waitFor(t, time.Minute, c.name+"'s shrunk pool's nodes removed", func() bool {
			return len(want) == 1 && slices.Equal(providerIDsOf(kubeNodesWith(t, cs, c.prefix)), want)
		})
	}
}
