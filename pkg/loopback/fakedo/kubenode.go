package fakedo

import (
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/digitalocean/godo"
)

// kubeNode is node n of pool p as DOKS registers it in the cluster: named as the cloud names it,
// labelled as DOKS labels it (nodeLabels), with the pool's taints, which DOKS gives its kubelet,
// the providerID DigitalOcean's cloud controller manager sets, digitalocean://<droplet id>
// (digitalocean-cloud-controller-manager's providerIDPrefix), and the capacity GET /v2/sizes
// gives its size (withShape), so that what a node has is what the catalogue promised.
func kubeNode(c *godo.KubernetesCluster, p *godo.KubernetesNodePool, n *godo.KubernetesNode) fakecloud.Node {
	size := withShape(godo.Size{Slug: p.Size})
	node := fakecloud.Node{
		Name: n.Name, Labels: nodeLabels(c, p, n), ProviderID: "digitalocean://" + n.DropletID,
		CPU: size.Vcpus, MemoryMiB: size.Memory,
	}
	if size.GPUInfo != nil {
		node.GPUs = size.GPUInfo.Count
	}
	for _, t := range p.Taints {
		node.Taints = append(node.Taints, fakecloud.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	return node
}
