package cloudprovider_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/awslabs/operatorpkg/status"
	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/karpenter/internal/testbed"
	v1 "github.com/clusterplane/clusterplane/karpenter/pkg/apis/v1"
	"github.com/clusterplane/clusterplane/karpenter/pkg/cloudprovider"
	"github.com/clusterplane/clusterplane/karpenter/pkg/clouds"
	"github.com/clusterplane/clusterplane/karpenter/pkg/controllers/nodeclass"
	"github.com/clusterplane/clusterplane/karpenter/pkg/providers/instance"
	"github.com/clusterplane/clusterplane/karpenter/pkg/providers/instancetype"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	karpcp "sigs.k8s.io/karpenter/pkg/cloudprovider"
)

// world is a bed's cloud, a fake Kubernetes API holding one NodeClass of it, and the provider.
type world struct {
	bed  testbed.Bed
	kube client.Client
	cp   *cloudprovider.CloudProvider
	nc   v1.NodeClass
	kind string
}

func newWorld(t *testing.T, b testbed.Bed, spec v1.NodeClassSpec) *world {
	t.Helper()
	kind := "DigitalOceanNodeClass"
	if b.Name == "civo" {
		kind = "CivoNodeClass"
	}
	nc := cloudprovider.NewNodeClass(kind)
	nc.SetName("default")
	*nc.NodeClassSpec() = spec
	kube := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithStatusSubresource(nc).WithObjects(nc).Build()
	is := instance.New()
	is.BatchWindow, is.PollInterval = 20*time.Millisecond, 10*time.Millisecond
	cp := cloudprovider.New(kube, []clouds.Cloud{b.Cloud}, instancetype.New(time.Minute), is)
	return &world{bed: b, kube: kube, cp: cp, nc: nc, kind: kind}
}

// check runs the NodeClass controller's check and stores the result.
func (w *world) check(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	if err := w.kube.Get(ctx, client.ObjectKeyFromObject(w.nc), w.nc); err != nil {
		t.Fatal(err)
	}
	if _, err := nodeclass.Check(ctx, w.cp, w.nc); err != nil {
		t.Fatal(err)
	}
	// Update answers the stored status, which the status update then writes over.
	st := w.nc.NodeClassStatus().DeepCopy()
	if err := w.kube.Update(ctx, w.nc); err != nil {
		t.Fatal(err)
	}
	*w.nc.NodeClassStatus() = *st
	if err := w.kube.Status().Update(ctx, w.nc); err != nil {
		t.Fatal(err)
	}
}

func (w *world) claim(sizes ...string) *karpv1.NodeClaim {
	return &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "claim"},
		Spec: karpv1.NodeClaimSpec{
			NodeClassRef: &karpv1.NodeClassReference{Group: v1.Group, Kind: w.kind, Name: "default"},
			Requirements: []karpv1.NodeSelectorRequirementWithMinValues{
				{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpIn, Values: sizes},
			},
		},
	}
}

func clusterSpec(b testbed.Bed) v1.NodeClassSpec {
	return v1.NodeClassSpec{Cluster: v1.ClusterRef{ID: b.Cluster.ID}, Labels: map[string]string{"team": "a"}}
}

// Promise: karpenter-nodeclass-conditions
func TestTheNodeClassConditionsSayWhatIsWrong(t *testing.T) {
	for _, b := range testbed.Both(t) {
		for _, tc := range []struct {
			name      string
			spec      func(v1.NodeClassSpec) v1.NodeClassSpec
			ready     bool
			falseCond string
			reason    string
		}{
			{name: "a NodeClass of a running cluster with offered sizes is ready",
				spec: func(s v1.NodeClassSpec) v1.NodeClassSpec { return s }, ready: true},
			{name: "a cluster that is not there is ClusterNotFound",
				spec:      func(s v1.NodeClassSpec) v1.NodeClassSpec { s.Cluster = v1.ClusterRef{ID: "no-such-cluster"}; return s },
				falseCond: v1.ConditionClusterReady, reason: "ClusterNotFound"},
			{name: "a cluster found by its name is ready",
				spec: func(s v1.NodeClassSpec) v1.NodeClassSpec { s.Cluster = v1.ClusterRef{Name: "c"}; return s }, ready: true},
			{name: "terms that select no offered size are NoSizeSelected",
				spec: func(s v1.NodeClassSpec) v1.NodeClassSpec {
					s.SizeSelectorTerms = []v1.SizeSelectorTerm{{Names: []string{"no-such-size"}}}
					return s
				},
				falseCond: v1.ConditionSizesResolved, reason: "NoSizeSelected"},
		} {
			t.Run(b.Name+"/"+tc.name, func(t *testing.T) {
				w := newWorld(t, b, tc.spec(clusterSpec(b)))
				w.check(t)
				conds := w.nc.StatusConditions()
				if got := conds.Root().IsTrue(); got != tc.ready {
					t.Errorf("Ready %v, want %v: %+v", got, tc.ready, conds.List())
				}
				if tc.falseCond != "" {
					if c := conds.Get(tc.falseCond); c == nil || !c.IsFalse() || c.Reason != tc.reason {
						t.Errorf("%s: %+v, want False %s", tc.falseCond, c, tc.reason)
					}
				}
				if tc.ready && (w.nc.NodeClassStatus().ClusterID != b.Cluster.ID || len(w.nc.NodeClassStatus().Sizes) == 0) {
					t.Errorf("status %+v, want the cluster and its sizes", w.nc.NodeClassStatus())
				}
				if w.nc.GetAnnotations()[v1.AnnotationHash] != w.nc.NodeClassSpec().Hash() {
					t.Errorf("annotations %v, want the spec's hash", w.nc.GetAnnotations())
				}
			})
		}
	}
}

func TestANodeClaimsNodeIsCreatedFoundListedAndDeleted(t *testing.T) {
	ctx := context.Background()
	for _, b := range testbed.Both(t) {
		t.Run(b.Name, func(t *testing.T) {
			w := newWorld(t, b, clusterSpec(b))
			w.check(t)
			got, err := w.cp.Create(ctx, w.claim(b.SmallSize()))
			if err != nil {
				t.Fatal(err)
			}
			id := got.Status.ProviderID
			if got.Labels[corev1.LabelInstanceTypeStable] != b.SmallSize() || got.Labels["karpenter.sh/capacity-type"] != "on-demand" ||
				got.Annotations[v1.AnnotationHash] == "" || id == "" {
				t.Fatalf("created %+v", got)
			}
			if found, err := w.cp.Get(ctx, id); err != nil || found.Status.ProviderID != id {
				t.Errorf("Get: %+v, %v", found, err)
			}
			if all, err := w.cp.List(ctx); err != nil || len(all) != 1 {
				t.Errorf("List: %d, %v; want the one node", len(all), err)
			}
			claim := w.claim(b.SmallSize())
			claim.Status.ProviderID, claim.Annotations = id, got.Annotations
			if err := w.cp.Delete(ctx, claim); err != nil {
				t.Fatalf("the first Delete: %v, want nil (deletion started)", err)
			}
			if err := w.cp.Delete(ctx, claim); !karpcp.IsNodeClaimNotFoundError(err) {
				t.Errorf("the second Delete: %v, want NodeClaimNotFound", err)
			}
			if _, err := w.cp.Get(ctx, id); !karpcp.IsNodeClaimNotFoundError(err) {
				t.Errorf("Get after Delete: %v, want NodeClaimNotFound", err)
			}
			if m := b.Manifest(t); m.Count != 2 {
				t.Errorf("the manifest's pool changed: %+v", m)
			}
		})
	}
}

// The provider's pools carry the NodeClass's taints and no other: not Karpenter's
// karpenter.sh/unregistered:NoExecute, which its providers put on a machine's kubelet for
// Karpenter to remove once the node is registered. A managed pool's taints are the pool's, on
// every node for as long as it lives (DigitalOcean and Civo set them on each node of the pool,
// old and new, whenever the pool's taints change), so a NoExecute taint there would come back
// and evict every pod; docs/karpenter.md says what the missing taint means.
func TestThePoolsCarryTheNodeClassTaintsAndNotKarpentersUnregisteredTaint(t *testing.T) {
	ctx := context.Background()
	for _, b := range testbed.Both(t) {
		t.Run(b.Name, func(t *testing.T) {
			spec := clusterSpec(b)
			spec.Taints = []v1.Taint{{Key: "workload", Value: "batch", Effect: corev1.TaintEffectNoSchedule}}
			w := newWorld(t, b, spec)
			w.check(t)
			if _, err := w.cp.Create(ctx, w.claim(b.SmallSize())); err != nil {
				t.Fatal(err)
			}
			want := []string{"workload=batch:NoSchedule"}
			for _, pool := range poolTaints(t, b) {
				if pool.name == testbed.ManifestPool {
					continue
				}
				if !slices.Equal(pool.taints, want) {
					t.Errorf("pool %s has taints %q, want the NodeClass's alone: %q", pool.name, pool.taints, want)
				}
			}
		})
	}
}

type taintedPool struct {
	name   string
	taints []string
}

// poolTaints are the cluster's pools with their taints as the cloud holds them, key=value:effect.
func poolTaints(t *testing.T, b testbed.Bed) []taintedPool {
	t.Helper()
	var out []taintedPool
	if b.DO != nil {
		for _, p := range b.DO.Pools(b.Cluster.ID) {
			tp := taintedPool{name: p.Name}
			for _, tt := range p.Taints {
				tp.taints = append(tp.taints, tt.Key+"="+tt.Value+":"+tt.Effect)
			}
			out = append(out, tp)
		}
		return out
	}
	cl, ok := b.Civo.Cluster(b.Cluster.ID)
	if !ok {
		t.Fatalf("Civo has no cluster %s", b.Cluster.ID)
	}
	for _, p := range cl.Pools {
		tp := taintedPool{name: p.ID}
		for _, tt := range p.Taints {
			tp.taints = append(tp.taints, tt.Key+"="+tt.Value+":"+string(tt.Effect))
		}
		out = append(out, tp)
	}
	return out
}

// A NodeClass without size terms (the default) offers Karpenter no GPU size, however cheap the
// cloud prices it: Karpenter would otherwise put enough CPU-only pods on a NodeClaim only a GPU
// size fits, and launch it. On DigitalOcean, whose loopback prices its GPU sizes at the fake's
// $10, cheaper than any priced size; Civo's price table has no price for its GPU size, which is
// then never offered at all.
func TestTheDefaultNodeClassOffersKarpenterNoGPUSize(t *testing.T) {
	ctx := context.Background()
	for _, b := range []testbed.Bed{testbed.DigitalOcean(t)} {
		t.Run(b.Name, func(t *testing.T) {
			w := newWorld(t, b, clusterSpec(b))
			w.check(t)
			np := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
			np.Spec.Template.Spec.NodeClassRef = &karpv1.NodeClassReference{Group: v1.Group, Kind: w.kind, Name: "default"}
			its, err := w.cp.GetInstanceTypes(ctx, np)
			if err != nil || len(its) == 0 {
				t.Fatalf("GetInstanceTypes: %d types, %v", len(its), err)
			}
			for _, it := range its {
				if q, ok := it.Capacity[instancetype.ResourceGPU]; ok && !q.IsZero() {
					t.Errorf("the default NodeClass offers %s with %s GPUs", it.Name, q.String())
				}
			}
			sizes, err := w.cp.InstanceTypes().Sizes(ctx, b.Cloud, b.Cluster.Region)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(sizes, func(s clouds.Size) bool { return s.GPUs > 0 && s.MonthlyPrice > 0 }) {
				t.Fatalf("the cloud offers no priced GPU size to leave out: %+v", sizes)
			}
		})
	}
}

func TestANodeClassNotReadyRefusesCreates(t *testing.T) {
	b := testbed.DigitalOcean(t)
	w := newWorld(t, b, v1.NodeClassSpec{Cluster: v1.ClusterRef{ID: "no-such-cluster"}})
	w.check(t)
	_, err := w.cp.Create(context.Background(), w.claim(b.SmallSize()))
	if !karpcp.IsNodeClassNotReadyError(err) {
		t.Errorf("got %v, want NodeClassNotReady", err)
	}
}

func TestAChangedNodeClassDriftsItsNodes(t *testing.T) {
	ctx := context.Background()
	for _, b := range testbed.Both(t) {
		for _, tc := range []struct {
			name   string
			change func(*v1.NodeClassSpec)
			want   karpcp.DriftReason
		}{
			{"an unchanged NodeClass drifts nothing", func(*v1.NodeClassSpec) {}, ""},
			{"changed labels drift the node", func(s *v1.NodeClassSpec) { s.Labels = map[string]string{"team": "b"} },
				cloudprovider.DriftNodeClassChanged},
			{"terms that drop the node's size drift it", func(s *v1.NodeClassSpec) {
				s.SizeSelectorTerms = []v1.SizeSelectorTerm{{Names: []string{otherSize(b)}}}
			}, cloudprovider.DriftSizeNotSelected},
		} {
			t.Run(b.Name+"/"+tc.name, func(t *testing.T) {
				w := newWorld(t, b, clusterSpec(b))
				w.check(t)
				got, err := w.cp.Create(ctx, w.claim(b.SmallSize()))
				if err != nil {
					t.Fatal(err)
				}
				claim := w.claim(b.SmallSize())
				claim.Labels, claim.Annotations, claim.Status.ProviderID = got.Labels, got.Annotations, got.Status.ProviderID
				tc.change(w.nc.NodeClassSpec())
				if err := w.kube.Update(ctx, w.nc); err != nil {
					t.Fatal(err)
				}
				w.check(t)
				reason, err := w.cp.IsDrifted(ctx, claim)
				if err != nil || reason != tc.want {
					t.Errorf("IsDrifted: %q, %v; want %q", reason, err, tc.want)
				}
			})
		}
	}
}

func otherSize(b testbed.Bed) string {
	if b.Name == "civo" {
		return "g4s.kube.medium"
	}
	return "s-2vcpu-4gb"
}

func TestGarbageCollectionDeletesOnlyUnclaimedNodesAfterTheirGrace(t *testing.T) {
	ctx := context.Background()
	for _, b := range testbed.Both(t) {
		t.Run(b.Name, func(t *testing.T) {
			w := newWorld(t, b, clusterSpec(b))
			w.check(t)
			kept, err := w.cp.Create(ctx, w.claim(b.SmallSize()))
			if err != nil {
				t.Fatal(err)
			}
			claim := w.claim(b.SmallSize())
			claim.Status.ProviderID = kept.Status.ProviderID
			if err := w.kube.Create(ctx, claim); err != nil {
				t.Fatal(err)
			}
			// A create whose NodeClaim never learnt its node, as after a crash.
			orphan, err := w.cp.Create(ctx, w.claim(b.SmallSize()))
			if err != nil {
				t.Fatal(err)
			}
			gc := cloudprovider.NewGarbageCollector(w.cp, time.Minute, time.Second)
			now := time.Unix(1_000_000, 0)
			gc.Now = func() time.Time { return now }
			for _, step := range []struct {
				advance    time.Duration
				orphanGone bool
			}{{0, false}, {59 * time.Second, false}, {time.Second, true}} {
				now = now.Add(step.advance)
				if err := gc.Collect(ctx); err != nil {
					t.Fatal(err)
				}
				_, err := w.cp.Get(ctx, orphan.Status.ProviderID)
				if gone := karpcp.IsNodeClaimNotFoundError(err); gone != step.orphanGone {
					t.Errorf("after %v more: orphan gone %v, want %v (%v)", step.advance, gone, step.orphanGone, err)
				}
				if _, err := w.cp.Get(ctx, kept.Status.ProviderID); err != nil {
					t.Errorf("the claimed node: %v", err)
				}
			}
			if m := b.Manifest(t); m.Count != 2 {
				t.Errorf("the manifest's pool changed: %+v", m)
			}
		})
	}
}

var _ = errors.Is
var _ status.Object = (*v1.CivoNodeClass)(nil)

// A Civo cluster named without a region, whose name two regions hold, is a condition the user
// sees with kubectl, not an error retried as if the cloud were down; nothing is found, so no
// node can be made in the wrong cluster.
// Promise: karpenter-nodeclass-conditions
func TestACivoClusterNameTwoRegionsHoldIsClusterAmbiguous(t *testing.T) {
	f := fakecivo.New(t, testbed.Token, "") // an account that may use every region
	f.SeedCluster(civogo.KubernetesCluster{Name: "c", NetworkID: f.DefaultNetworkID("lon1")})
	f.SeedCluster(civogo.KubernetesCluster{Name: "c", NetworkID: f.DefaultNetworkID("fra1")})
	b := testbed.Bed{Name: "civo", Cloud: clouds.NewCivo(f.URL(), testbed.Token), URL: f.URL(), Civo: f}
	w := newWorld(t, b, v1.NodeClassSpec{Cluster: v1.ClusterRef{Name: "c"}})
	w.check(t)
	c := w.nc.StatusConditions().Get(v1.ConditionClusterReady)
	if c == nil || !c.IsFalse() || c.Reason != "ClusterAmbiguous" {
		t.Fatalf("ClusterReady %+v, want False ClusterAmbiguous", c)
	}
	if st := w.nc.NodeClassStatus(); st.ClusterID != "" || st.Region != "" {
		t.Errorf("status %+v names a cluster, want none", st)
	}
}
