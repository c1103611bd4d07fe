package fakecivo

import (
	"maps"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
)

// node is instance in of pool rp as Civo registers it in the cluster: named by its hostname,
// labelled with the pool's labels, kubernetes.civo.com/civo-node-pool=<pool id> and its size, with
// the pool's taints, which Civo gives its kubelet, the providerID Civo's cloud controller manager
// sets, civo://<instance id> (civo-cloud-controller-manager, pkg/utils/instance.go), and the
// capacity of its size in the catalogue.
func (f kubeLink) node(rp civogo.KubernetesPool, in civogo.KubernetesInstance) fakecloud.Node {
	labels := maps.Clone(rp.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[civoNodePoolLabel] = rp.ID
	labels["node.kubernetes.io/instance-type"] = rp.Size
	node := fakecloud.Node{Name: in.Hostname, Labels: labels, ProviderID: "civo://" + in.ID}
	for _, s := range f.sizes {
		if s.Name == rp.Size {
			node.CPU, node.MemoryMiB, node.GPUs = s.CPUCores, s.RAMMegabytes, s.GPUCount
		}
	}
	for _, t := range rp.Taints {
		node.Taints = append(node.Taints, fakecloud.Taint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)})
	}
	return node
}
