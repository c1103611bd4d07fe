package instancetype_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/civo/civogo"
	v1 "github.com/clusterplane/clusterplane/karpenter/pkg/apis/v1"
	"github.com/clusterplane/clusterplane/karpenter/pkg/clouds"
	"github.com/clusterplane/clusterplane/karpenter/pkg/providers/instancetype"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	corev1 "k8s.io/api/core/v1"
)

const token = "karpenter-test-token"

func names(sizes []clouds.Size) []string {
	var out []string
	for _, s := range sizes {
		out = append(out, s.Name)
	}
	return out
}

func TestSizeSelectorTermsSelectPricedSizesCheapestFirst(t *testing.T) {
	f := fakedo.New(t, token)
	f.Account().SetSizes("s-1vcpu-2gb", "s-2vcpu-4gb", "s-2vcpu-4gb-amd", "c-2", "gpu-h100x1-80gb")
	f.Account().SetPrice("s-1vcpu-2gb", 12)
	f.Account().SetPrice("s-2vcpu-4gb", 24)
	f.Account().SetPrice("s-2vcpu-4gb-amd", 28)
	f.Account().SetPrice("c-2", 42)
	f.Account().SetPrice("gpu-h100x1-80gb", 2500)
	sizes, err := clouds.NewDigitalOcean(f.URL(), token).Sizes(context.Background(), "fra1")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		terms []v1.SizeSelectorTerm
		want  []string
	}{
		{"no term selects every size but the GPU sizes, cheapest first", nil,
			[]string{"s-1vcpu-2gb", "s-2vcpu-4gb", "s-2vcpu-4gb-amd", "c-2"}},
		{"a name selects that size", []v1.SizeSelectorTerm{{Names: []string{"c-2"}}}, []string{"c-2"}},
		{"a family selects its sizes", []v1.SizeSelectorTerm{{Families: []string{"s"}}},
			[]string{"s-1vcpu-2gb", "s-2vcpu-4gb", "s-2vcpu-4gb-amd"}},
		{"a tag selects the sizes that have it", []v1.SizeSelectorTerm{{Tags: []string{"gpu"}}}, []string{"gpu-h100x1-80gb"}},
		{"a GPU size's name selects it", []v1.SizeSelectorTerm{{Names: []string{"gpu-h100x1-80gb"}}}, []string{"gpu-h100x1-80gb"}},
		{"a GPU size's family selects it", []v1.SizeSelectorTerm{{Families: []string{"gpu"}}}, []string{"gpu-h100x1-80gb"}},
		{"a tag a GPU size shares selects it only with the tag gpu", []v1.SizeSelectorTerm{{Tags: []string{"dedicated"}}}, []string{"c-2"}},
		{"a term's fields must all match", []v1.SizeSelectorTerm{{Families: []string{"s"}, Tags: []string{"amd"}}},
			[]string{"s-2vcpu-4gb-amd"}},
		{"any of several terms selects", []v1.SizeSelectorTerm{{Names: []string{"c-2"}}, {Tags: []string{"amd"}}},
			[]string{"s-2vcpu-4gb-amd", "c-2"}},
		{"a size no term selects is left out", []v1.SizeSelectorTerm{{Names: []string{"no-such-size"}}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := names(instancetype.Select(sizes, tc.terms)); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestInstanceTypesCarryTheSizesShapeOverheadAndOneOnDemandOffering(t *testing.T) {
	civo := fakecivo.New(t, token, "lon1")
	civo.SeedCluster(civogo.KubernetesCluster{Name: "c"})
	civoSizes, err := clouds.NewCivo(civo.URL(), token).Sizes(context.Background(), "lon1")
	if err != nil {
		t.Fatal(err)
	}
	do := fakedo.New(t, token)
	doSizes, err := clouds.NewDigitalOcean(do.URL(), token).Sizes(context.Background(), "fra1")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, cloud, size, region string
		sizes                     []clouds.Size
		cpu, memory, gpu          string
		// allocatable memory is at most this.
		allocMemoryAtMost string
		priced            bool
	}{
		{name: "a Civo standard size keeps only the eviction threshold", cloud: "civo", size: "g4s.kube.medium",
			region: "lon1", sizes: civoSizes, cpu: "2", memory: "4Gi", gpu: "0", allocMemoryAtMost: "3996Mi", priced: true},
		{name: "a Civo GPU size offers its GPU and has no table price", cloud: "civo", size: "an.g1.l40s.kube.x1",
			region: "lon1", sizes: civoSizes, cpu: "12", memory: "64Gi", gpu: "1", allocMemoryAtMost: "64Gi", priced: false},
		{name: "a DigitalOcean size keeps memory for DOKS", cloud: "digitalocean", size: "s-2vcpu-4gb", region: "fra1",
			sizes: doSizes, cpu: "2", memory: "4Gi", gpu: "0", allocMemoryAtMost: "3Gi", priced: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i := slices.IndexFunc(tc.sizes, func(s clouds.Size) bool { return s.Name == tc.size })
			if i < 0 {
				t.Fatalf("no size %s in %v", tc.size, names(tc.sizes))
			}
			its, err := instancetype.InstanceTypes(tc.cloud, tc.sizes[i:i+1], tc.region)
			if err != nil {
				t.Fatal(err)
			}
			it := its[0]
			gpu := it.Capacity[instancetype.ResourceGPU]
			if c := it.Capacity[corev1.ResourceCPU]; c.String() != tc.cpu {
				t.Errorf("cpu %s, want %s", c.String(), tc.cpu)
			}
			if m := it.Capacity[corev1.ResourceMemory]; m.String() != tc.memory {
				t.Errorf("memory %s, want %s", m.String(), tc.memory)
			}
			if gpu.String() != tc.gpu {
				t.Errorf("gpu %s, want %s", gpu.String(), tc.gpu)
			}
			alloc := it.Allocatable()[corev1.ResourceMemory]
			if max := resourceOf(t, tc.allocMemoryAtMost); alloc.Cmp(max) > 0 || alloc.Sign() <= 0 {
				t.Errorf("allocatable memory %s, want above 0 and at most %s", alloc.String(), tc.allocMemoryAtMost)
			}
			if len(it.Offerings) != 1 || it.Offerings[0].Available != tc.priced {
				t.Fatalf("offerings %+v, want one, available %v", it.Offerings, tc.priced)
			}
			o := it.Offerings[0]
			if o.Requirements.Get(corev1.LabelTopologyZone).Any() != tc.region || o.Requirements.Get("karpenter.sh/capacity-type").Any() != "on-demand" {
				t.Errorf("offering requirements %v", o.Requirements)
			}
		})
	}
}

func TestSizesAreReadOncePerMaxAge(t *testing.T) {
	f := fakedo.New(t, token)
	cloud := clouds.NewDigitalOcean(f.URL(), token)
	p := instancetype.New(time.Minute)
	now := time.Unix(1_000_000, 0)
	p.Now = func() time.Time { return now }
	ctx := context.Background()
	for _, step := range []struct {
		advance  time.Duration
		requests int
	}{{0, 2}, {30 * time.Second, 2}, {31 * time.Second, 4}} {
		now = now.Add(step.advance)
		if _, err := p.Sizes(ctx, cloud, "fra1"); err != nil {
			t.Fatal(err)
		}
		if got := cloud.Requests(); got != step.requests {
			t.Errorf("after %v more: %d requests, want %d", step.advance, got, step.requests)
		}
	}
}
