package fakedo

import (
	"net/http"
	"slices"

	"github.com/digitalocean/godo"
)

// deleteNode answers DELETE /v2/kubernetes/clusters/{cluster}/node_pools/{pool}/nodes/{node}, the
// call godo v1.236.0 makes in DeleteNode (kubernetes.go), with the query it sends: replace=1 asks
// for a new node in its place, anything else (replace=0, none) removes the node and lowers the
// pool's count by one, as DigitalOcean's API reference says of "Delete a Node in a Kubernetes
// Cluster". It answers 204 No Content, and 404 when the cluster, the pool or the node is not there.
func (d poolAPI) deleteNode(w http.ResponseWriter, r *http.Request, clusterID, poolID, nodeID string) {
	cl, ok := d.clusters[clusterID]
	p := d.find(clusterID, poolID)
	if !ok || p == nil {
		d.notFound(w)
		return
	}
	i := slices.IndexFunc(p.Nodes, func(n *godo.KubernetesNode) bool { return n.ID == nodeID })
	if i < 0 {
		d.notFound(w)
		return
	}
	p.Nodes = slices.Delete(p.Nodes, i, i+1)
	switch r.URL.Query().Get("replace") {
	case "1", "true":
		// resize makes the replacement, provisioning, at the end of the list.
		d.resize(p, stateProvisioning)
		cl.poolPending[p.ID] = d.provisionPolls
	default:
		p.Count = len(p.Nodes)
	}
	cl.c.UpdatedAt = now()
	w.WriteHeader(http.StatusNoContent)
}

// sizeShape is what GET /v2/sizes says of a size beside its price: CPUs, memory in MiB, disk in
// GB and GPUs. The figures of the fake's sizes are DigitalOcean's for those slugs
// (digitalocean.com/pricing/droplets); a size the fake does not know is given 2 CPUs and 4 GiB.
type sizeShape struct {
	vcpus, memoryMiB, diskGB, gpus int
	gpuModel                       string
}

var sizeShapes = map[string]sizeShape{
	"s-1vcpu-2gb":       {1, 2048, 50, 0, ""},
	"s-2vcpu-2gb":       {2, 2048, 60, 0, ""},
	"s-2vcpu-4gb":       {2, 4096, 80, 0, ""},
	"s-4vcpu-8gb":       {4, 8192, 160, 0, ""},
	"s-8vcpu-16gb":      {8, 16384, 320, 0, ""},
	"s-2vcpu-4gb-amd":   {2, 4096, 80, 0, ""},
	"s-4vcpu-8gb-amd":   {4, 8192, 160, 0, ""},
	"s-4vcpu-8gb-intel": {4, 8192, 160, 0, ""},
	"c-2":               {2, 4096, 25, 0, ""},
	"c-4":               {4, 8192, 50, 0, ""},
	"c-8":               {8, 16384, 100, 0, ""},
	"g-2vcpu-8gb":       {2, 8192, 25, 0, ""},
	"g-4vcpu-16gb":      {4, 16384, 50, 0, ""},
	"m-2vcpu-16gb":      {2, 16384, 50, 0, ""},
	"so-2vcpu-16gb":     {2, 16384, 300, 0, ""},
	"gpu-h100x1-80gb":   {20, 245760, 720, 1, "nvidia_h100"},
	"gpu-h100x8-640gb":  {160, 1966080, 2046, 8, "nvidia_h100"},
}

// withShape fills a size's CPUs, memory, disk and GPUs from sizeShapes.
func withShape(s godo.Size) godo.Size {
	shape, ok := sizeShapes[s.Slug]
	if !ok {
		shape = sizeShape{vcpus: 2, memoryMiB: 4096, diskGB: 80}
	}
	s.Vcpus, s.Memory, s.Disk = shape.vcpus, shape.memoryMiB, shape.diskGB
	if shape.gpus > 0 {
		s.GPUInfo = &godo.GPUInfo{Count: shape.gpus, Model: shape.gpuModel}
	}
	return s
}
