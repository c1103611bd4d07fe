package fakecivo

import (
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
)

// kube is what ties the fake's clusters to real Kubernetes control planes: the kubeconfig each
// reports and where each registers its nodes. The server's Mu guards it.
type kube struct {
	configs map[string][]byte
	nodes   fakecloud.NodeSync
}

// civoNodePoolLabel is the label Civo's nodes carry naming their pool by id (pkg/cloud/drain cites the
// source); the pool's own labels, which Civo reports with kubernetes.civo.com/node-pool, come too.
const civoNodePoolLabel = "kubernetes.civo.com/civo-node-pool"

// SetKubeconfig makes cluster clusterID report kubeconfig, a real control plane's, as its
// kubeconfig instead of made-up credentials, from now on. nil stops it (the last one stays).
func (f *Civo) SetKubeconfig(clusterID string, kubeconfig []byte) {
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	if f.kube.configs == nil {
		f.kube.configs = map[string][]byte{}
	}
	if kubeconfig == nil {
		delete(f.kube.configs, clusterID)
		return
	}
	f.kube.configs[clusterID] = append([]byte(nil), kubeconfig...)
	f.syncKube()
}

// SetNodes registers cluster clusterID's nodes in n, at once and after every request from then
// on: each ACTIVE node of each pool as the Node Civo registers (see kubeNode); nodes of a shrunk
// or deleted pool or cluster are removed. nil stops it.
func (f *Civo) SetNodes(clusterID string, n fakecloud.Nodes) {
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	f.kube.nodes.Set(clusterID, n)
	f.syncKube()
}

// syncKube applies the set kubeconfigs and brings the registered nodes up to date; it runs with
// Mu held, after every request.
func (f *Civo) syncKube() {
	for id, kc := range f.kube.configs {
		if fc, ok := f.clusters[id]; ok {
			fc.c.KubeConfig = string(kc)
		}
	}
	for _, id := range f.kube.nodes.Clusters() {
		var want []fakecloud.Node
		if fc, ok := f.clusters[id]; ok && !fc.deleted {
			for _, p := range f.poolsOf(id) {
				rp := f.renderPool(id, p)
				for _, in := range rp.Instances {
					if in.Status != "ACTIVE" {
						continue
					}
					want = append(want, f.kubeNode(rp, in))
				}
			}
		}
		f.kube.nodes.Sync(id, want)
	}
}
