package fakecivo

import (
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
)

// kubeLink registers the clusters' nodes in real control planes and serves their kubeconfigs
// (kube): it runs after every request.
type kubeLink struct{ *store }

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
	f.s.srv.Mu.Lock()
	defer f.s.srv.Mu.Unlock()
	if f.s.kube.configs == nil {
		f.s.kube.configs = map[string][]byte{}
	}
	if kubeconfig == nil {
		delete(f.s.kube.configs, clusterID)
		return
	}
	f.s.kube.configs[clusterID] = append([]byte(nil), kubeconfig...)
	f.s.kubeLink.sync()
}

// SetNodes registers cluster clusterID's nodes in n, at once and after every request from then
// on: each ACTIVE node of each pool as the Node Civo registers (see kubeLink.node); nodes of a shrunk
// or deleted pool or cluster are removed. nil stops it.
func (f *Civo) SetNodes(clusterID string, n fakecloud.Nodes) {
	f.s.srv.Mu.Lock()
	defer f.s.srv.Mu.Unlock()
	f.s.kube.nodes.Set(clusterID, n)
	f.s.kubeLink.sync()
}

// sync applies the set kubeconfigs and brings the registered nodes up to date; it runs with
// Mu held, after every request.
func (f kubeLink) sync() {
	for id, kc := range f.kube.configs {
		if fc, ok := f.clusters[id]; ok {
			fc.c.KubeConfig = string(kc)
		}
	}
	for _, id := range f.kube.nodes.Clusters() {
		var want []fakecloud.Node
		if fc, ok := f.clusters[id]; ok && !fc.deleted {
			for _, p := range f.poolAPI.of(id) {
				rp := f.poolAPI.render(id, p)
				for _, in := range rp.Instances {
					if in.Status != "ACTIVE" {
						continue
					}
					want = append(want, f.node(rp, in))
				}
			}
		}
		f.kube.nodes.Sync(id, want)
	}
}
