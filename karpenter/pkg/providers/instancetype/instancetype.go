// Package instancetype turns a cloud's node sizes into Karpenter's instance types: their CPU,
// memory and GPUs, what the node keeps for itself, and one on-demand offering in the cluster's
// region at the size's price. A region's sizes are read once per MaxAge.
package instancetype

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/clusterplane/clusterplane/karpenter/pkg/apis/v1"
	"github.com/clusterplane/clusterplane/karpenter/pkg/clouds"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"
)

// DefaultMaxAge is how long a region's sizes are kept: sizes and prices change seldom, and
// Karpenter asks for instance types on every scheduling round.
const DefaultMaxAge = 10 * time.Minute

// MaxPods is the pods a node takes: 110, Kubernetes' default, which every cloud served keeps
// (DOKS, Civo's k3s).
const MaxPods = 110

// ResourceGPU is the resource NVIDIA's device plugin offers: every GPU size of both clouds is
// NVIDIA's (DigitalOcean's H100, Civo's L40S and A100).
const ResourceGPU corev1.ResourceName = "nvidia.com/gpu"

// Provider reads sizes and keeps them for MaxAge. It is safe for concurrent use.
type Provider struct {
	MaxAge time.Duration
	// Now is the clock (replaced in tests).
	Now func() time.Time

	mu    sync.Mutex
	cache map[string]entry
}

type entry struct {
	sizes []clouds.Size
	at    time.Time
}

// New keeps sizes for maxAge (DefaultMaxAge when 0).
func New(maxAge time.Duration) *Provider {
	if maxAge <= 0 {
		maxAge = DefaultMaxAge
	}
	return &Provider{MaxAge: maxAge, Now: time.Now, cache: map[string]entry{}}
}

// Sizes are region's sizes on cloud, read again when older than MaxAge. A failed read is not
// kept: the next call asks again.
func (p *Provider) Sizes(ctx context.Context, cloud clouds.Cloud, region string) ([]clouds.Size, error) {
	key := cloud.Name() + "/" + region
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.cache[key]; ok && p.Now().Sub(e.at) < p.MaxAge {
		return e.sizes, nil
	}
	sizes, err := cloud.Sizes(ctx, region)
	if err != nil {
		return nil, fmt.Errorf("read the sizes %s offers in %s: %w", cloud.Name(), region, err)
	}
	p.cache[key] = entry{sizes: sizes, at: p.Now()}
	return sizes, nil
}

// Select are the sizes the terms select (every size but the GPU sizes when there are none),
// priced ones only, cheapest first (by name between equal prices).
//
// A GPU size is selected only by a term that asks for it by name, by family or by the tag "gpu".
// Karpenter puts pending pods on one NodeClaim for as long as some selected size fits them all,
// and then launches the cheapest of the sizes that do: when the largest sizes are GPU sizes
// (DigitalOcean's gpu-h100x8-640gb has 160 vCPUs), enough CPU-only pods leave only GPU sizes on
// the NodeClaim, and a CPU workload gets a GPU node at many times the price. Neither cloud keeps
// CPU pods off its GPU nodes by itself, and Karpenter cannot know of a taint a size alone would
// carry, so the sizes are left out instead.
func Select(sizes []clouds.Size, terms []v1.SizeSelectorTerm) []clouds.Size {
	var out []clouds.Size
	for _, s := range sizes {
		if s.MonthlyPrice <= 0 {
			continue
		}
		if len(terms) == 0 && s.GPUs == 0 || slices.ContainsFunc(terms, func(t v1.SizeSelectorTerm) bool { return matches(t, s) }) {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].HourlyPrice != out[j].HourlyPrice {
			return out[i].HourlyPrice < out[j].HourlyPrice
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// matches tells whether every field the term sets matches the size, and a GPU size only when
// the term asks for GPUs.
func matches(t v1.SizeSelectorTerm, s clouds.Size) bool {
	if s.GPUs > 0 && !slices.Contains(t.Names, s.Name) && !slices.Contains(t.Families, s.Family) && !slices.Contains(t.Tags, "gpu") {
		return false
	}
	if len(t.Names) > 0 && !slices.Contains(t.Names, s.Name) {
		return false
	}
	if len(t.Families) > 0 && !slices.Contains(t.Families, s.Family) {
		return false
	}
	for _, tag := range t.Tags {
		if !slices.Contains(s.Tags, tag) {
			return false
		}
	}
	return true
}

// InstanceTypes are the sizes as Karpenter's instance types in region, each with one on-demand
// offering there. cloud picks the overhead; a cloud the provider does not serve is an error.
func InstanceTypes(cloud string, sizes []clouds.Size, region string) ([]*cloudprovider.InstanceType, error) {
	out := make([]*cloudprovider.InstanceType, 0, len(sizes))
	for _, s := range sizes {
		overhead, err := Overhead(cloud, s)
		if err != nil {
			return nil, err
		}
		out = append(out, instanceType(overhead, s, region))
	}
	return out, nil
}

func instanceType(overhead *cloudprovider.InstanceTypeOverhead, s clouds.Size, region string) *cloudprovider.InstanceType {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewQuantity(s.CPUs, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(s.MemoryMiB*1024*1024, resource.BinarySI),
		corev1.ResourcePods:   *resource.NewQuantity(MaxPods, resource.DecimalSI),
	}
	if s.GPUs > 0 {
		capacity[ResourceGPU] = *resource.NewQuantity(s.GPUs, resource.DecimalSI)
	}
	offering := &cloudprovider.Offering{
		Requirements: scheduling.NewRequirements(
			scheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, karpv1.CapacityTypeOnDemand),
			scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, region),
		),
		Price:     s.HourlyPrice,
		Available: s.MonthlyPrice > 0,
	}
	return &cloudprovider.InstanceType{
		Name: s.Name,
		Requirements: scheduling.NewRequirements(
			scheduling.NewRequirement(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, s.Name),
			scheduling.NewRequirement(corev1.LabelArchStable, corev1.NodeSelectorOpIn, karpv1.ArchitectureAmd64),
			scheduling.NewRequirement(corev1.LabelOSStable, corev1.NodeSelectorOpIn, string(corev1.Linux)),
			scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, region),
			scheduling.NewRequirement(corev1.LabelTopologyRegion, corev1.NodeSelectorOpIn, region),
			scheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, karpv1.CapacityTypeOnDemand),
			scheduling.NewRequirement(v1.LabelSizeFamily, corev1.NodeSelectorOpIn, s.Family),
			scheduling.NewRequirement(v1.LabelSizeCPU, corev1.NodeSelectorOpIn, strconv.FormatInt(s.CPUs, 10)),
			scheduling.NewRequirement(v1.LabelSizeMemory, corev1.NodeSelectorOpIn, strconv.FormatInt(s.MemoryMiB, 10)),
			scheduling.NewRequirement(v1.LabelGPUCount, corev1.NodeSelectorOpIn, strconv.FormatInt(s.GPUs, 10)),
		),
		Offerings: cloudprovider.Offerings{offering},
		Capacity:  capacity,
		Overhead:  overhead,
	}
}
