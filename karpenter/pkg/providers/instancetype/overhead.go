package instancetype

import (
	"fmt"

	"github.com/clusterplane/clusterplane/karpenter/pkg/clouds"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
)

// evictionMiB is the kubelet's default hard eviction threshold, memory.available<100Mi
// (kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction, "Hard eviction
// thresholds"): no cloud the provider serves documents another.
const evictionMiB = 100

// Overhead is what a node of size s keeps from its pods on cloud, by the cloud's reservation
// recipe (its Driver's Reserve); a cloud the table does not hold, or a recipe this does not know,
// is an error, never another cloud's reservation.
//
// ReserveGKEFormula is GKE's published formula (cloud.google.com/kubernetes-engine/docs/concepts/
// plan-node-sizes: memory 25% of the first 4 GiB, 20% of the next 4, 10% of the next 8, 6% of the
// next 112, 2% above; CPU 6% of the first core, 1% of the second, 0.5% of the next two, 0.25%
// above), as kube-reserved.
func Overhead(cloud string, s clouds.Size) (*cloudprovider.InstanceTypeOverhead, error) {
	d, err := clouds.ByID(cloud)
	if err != nil {
		return nil, err
	}
	eviction := corev1.ResourceList{corev1.ResourceMemory: mib(evictionMiB)}
	switch d.Reserve {
	case clouds.ReserveNothing:
		return &cloudprovider.InstanceTypeOverhead{KubeReserved: corev1.ResourceList{}, SystemReserved: corev1.ResourceList{},
			EvictionThreshold: eviction}, nil
	case clouds.ReserveGKEFormula:
		return &cloudprovider.InstanceTypeOverhead{
			KubeReserved: corev1.ResourceList{
				corev1.ResourceCPU:    *resource.NewMilliQuantity(reservedMilliCPU(s.CPUs), resource.DecimalSI),
				corev1.ResourceMemory: mib(reservedMiB(s.MemoryMiB)),
			},
			SystemReserved:    corev1.ResourceList{},
			EvictionThreshold: eviction,
		}, nil
	}
	return nil, fmt.Errorf("cloud %s has no reservation recipe the provider knows (%d)", cloud, d.Reserve)
}

func mib(n int64) resource.Quantity { return *resource.NewQuantity(n*1024*1024, resource.BinarySI) }

// reservedMiB is GKE's memory reservation of a node of memory MiB.
func reservedMiB(memory int64) int64 {
	steps := []struct{ upTo, permille int64 }{{4096, 250}, {8192, 200}, {16384, 100}, {131072, 60}, {1 << 62, 20}}
	var reserved, below int64
	for _, s := range steps {
		if memory <= below {
			break
		}
		part := min(memory, s.upTo) - below
		reserved += part * s.permille / 1000
		below = s.upTo
	}
	return reserved
}

// reservedMilliCPU is GKE's CPU reservation of a node of cpus cores, in millicores.
func reservedMilliCPU(cpus int64) int64 {
	// In hundredths of a millicore per core: 6% is 60 m, 1% 10 m, 0.5% 5 m, 0.25% 2.5 m.
	steps := []struct{ upTo, centiMilli int64 }{{1, 6000}, {2, 1000}, {4, 500}, {1 << 62, 250}}
	var reserved, below int64
	for _, s := range steps {
		if cpus <= below {
			break
		}
		reserved += (min(cpus, s.upTo) - below) * s.centiMilli
		below = s.upTo
	}
	return reserved / 100
}
