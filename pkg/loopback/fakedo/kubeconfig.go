package fakedo

import (
	"encoding/base64"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/digitalocean/godo"
	yaml "go.yaml.in/yaml/v3"
)

// kube is what ties the fake's clusters to real Kubernetes control planes: the kubeconfig each
// serves and where each registers its nodes. The server's Mu guards it.
type kube struct {
	configs map[string][]byte
	nodes   fakecloud.NodeSync
}

// SetKubeconfig makes cluster clusterID serve kubeconfig, a real control plane's, instead of
// made-up credentials: GET .../kubeconfig answers it as it is, and GET .../credentials answers
// its server, certificate authority and token. nil goes back to made-up credentials.
func (d *DO) SetKubeconfig(clusterID string, kubeconfig []byte) {
	d.set(func() {
		if d.kube.configs == nil {
			d.kube.configs = map[string][]byte{}
		}
		if kubeconfig == nil {
			delete(d.kube.configs, clusterID)
			return
		}
		d.kube.configs[clusterID] = append([]byte(nil), kubeconfig...)
	})
}

// SetNodes registers cluster clusterID's nodes in n, at once and after every request from then
// on: each running node of each pool as the Node DOKS registers (see kubeNode); nodes of a
// shrunk or deleted pool or cluster are removed. nil stops it.
func (d *DO) SetNodes(clusterID string, n fakecloud.Nodes) {
	d.set(func() {
		d.kube.nodes.Set(clusterID, n)
		d.syncNodes()
	})
}

// syncNodes brings the registered nodes up to date; it runs with Mu held, after every request.
func (d *DO) syncNodes() {
	for _, id := range d.kube.nodes.Clusters() {
		var want []fakecloud.Node
		if cl, ok := d.clusters[id]; ok {
			for _, p := range cl.c.NodePools {
				for _, n := range p.Nodes {
					if n.Status != nil && n.Status.State == stateRunning {
						want = append(want, kubeNode(&cl.c, p, n))
					}
				}
			}
		}
		d.kube.nodes.Sync(id, want)
	}
}

// nodeLabels are the labels DOKS puts on a node: the pool's own labels, then the pool's name and
// id, the node's id and the cluster's version under doks.digitalocean.com (as on a real DOKS
// node; pkg/cloud/drain.PoolSelector cites where they are documented).
func nodeLabels(c *godo.KubernetesCluster, p *godo.KubernetesNodePool, n *godo.KubernetesNode) map[string]string {
	labels := map[string]string{}
	for k, v := range p.Labels {
		labels[k] = v
	}
	labels["doks.digitalocean.com/node-pool"] = p.Name
	labels["doks.digitalocean.com/node-pool-id"] = p.ID
	labels["doks.digitalocean.com/node-id"] = n.ID
	labels["doks.digitalocean.com/version"] = c.VersionSlug
	labels["node.kubernetes.io/instance-type"] = p.Size
	return labels
}

// servedKubeconfig is the kubeconfig SetKubeconfig gave cluster id, if any.
func (d *DO) servedKubeconfig(id string) ([]byte, bool) {
	kc, ok := d.kube.configs[id]
	return kc, ok
}

// realCredentials replaces made-up credentials by the set kubeconfig's server, CA and token.
func (d *DO) realCredentials(id string, creds *godo.KubernetesClusterCredentials) {
	kc, ok := d.kube.configs[id]
	if !ok {
		return
	}
	var cfg struct {
		Clusters []struct {
			Cluster struct {
				Server string `yaml:"server"`
				CA     string `yaml:"certificate-authority-data"`
			} `yaml:"cluster"`
		} `yaml:"clusters"`
		Users []struct {
			User struct {
				Token string `yaml:"token"`
			} `yaml:"user"`
		} `yaml:"users"`
	}
	if yaml.Unmarshal(kc, &cfg) != nil || len(cfg.Clusters) == 0 || len(cfg.Users) == 0 {
		return
	}
	creds.Server = cfg.Clusters[0].Cluster.Server
	if ca, err := base64.StdEncoding.DecodeString(cfg.Clusters[0].Cluster.CA); err == nil {
		creds.CertificateAuthorityData = ca
	}
	creds.Token = cfg.Users[0].User.Token
}
