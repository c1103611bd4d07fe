package fakedo

import (
	"regexp"
	"strconv"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/digitalocean/godo"
)

// kubeNode is node n of pool p as DOKS registers it in the cluster: named as the cloud names it,
// labelled as DOKS labels it (nodeLabels), with the pool's taints, which DOKS gives its kubelet,
// the providerID DigitalOcean's cloud controller manager sets, digitalocean://<droplet id>
// (digitalocean-cloud-controller-manager's providerIDPrefix), and its size's capacity.
func kubeNode(c *godo.KubernetesCluster, p *godo.KubernetesNodePool, n *godo.KubernetesNode) fakecloud.Node {
	shape := dropletShape(p.Size)
	node := fakecloud.Node{
		Name: n.Name, Labels: nodeLabels(c, p, n), ProviderID: "digitalocean://" + n.DropletID,
		CPU: shape.cpu, MemoryMiB: shape.memoryMiB, GPUs: shape.gpus,
	}
	for _, t := range p.Taints {
		node.Taints = append(node.Taints, fakecloud.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	return node
}

// shape is a Droplet size's machine: CPU cores, memory and GPUs.
type shape struct{ cpu, memoryMiB, gpus int }

// dropletShapes are the machines of DefaultSizes as DigitalOcean's GET /v2/sizes describes them
// (vcpus, memory in MiB, gpu_info.count); a size the fake is given beyond these is read from
// its slug (dropletShape).
var dropletShapes = map[string]shape{
	"s-1vcpu-2gb": {1, 2048, 0}, "s-2vcpu-2gb": {2, 2048, 0}, "s-2vcpu-4gb": {2, 4096, 0},
	"s-4vcpu-8gb": {4, 8192, 0}, "s-8vcpu-16gb": {8, 16384, 0}, "s-2vcpu-4gb-amd": {2, 4096, 0},
	"s-4vcpu-8gb-intel": {4, 8192, 0}, "c-2": {2, 4096, 0}, "c-4": {4, 8192, 0}, "c-8": {8, 16384, 0},
	"g-2vcpu-8gb": {2, 8192, 0}, "g-4vcpu-16gb": {4, 16384, 0}, "m-2vcpu-16gb": {2, 16384, 0},
	"so-2vcpu-16gb": {2, 16384, 0}, "gpu-h100x1-80gb": {20, 245760, 1}, "gpu-h100x8-640gb": {160, 1966080, 8},
}

// slugShape reads "<n>vcpu-<m>gb" out of a slug such as s-16vcpu-32gb.
var slugShape = regexp.MustCompile(`(\d+)vcpu-(\d+)gb`)

// dropletShape is size slug's machine: from dropletShapes, else from the slug, else zero (the
// cloud did not say).
func dropletShape(slug string) shape {
	if s, ok := dropletShapes[slug]; ok {
		return s
	}
	if m := slugShape.FindStringSubmatch(slug); m != nil {
		cpu, _ := strconv.Atoi(m[1])
		gb, _ := strconv.Atoi(m[2])
		return shape{cpu: cpu, memoryMiB: gb * 1024}
	}
	return shape{}
}
