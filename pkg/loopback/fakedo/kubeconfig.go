package fakedo

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/digitalocean/godo"
	yaml "go.yaml.in/yaml/v3"
)

// kubeLink ties the fake's clusters to real control planes: it serves their credentials and
// kubeconfigs, and registers their nodes after every request.
type kubeLink struct{ *store }

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
	d.s.set(func() {
		if d.s.kube.configs == nil {
			d.s.kube.configs = map[string][]byte{}
		}
		if kubeconfig == nil {
			delete(d.s.kube.configs, clusterID)
			return
		}
		d.s.kube.configs[clusterID] = append([]byte(nil), kubeconfig...)
	})
}

// SetNodes registers cluster clusterID's nodes in n, at once and after every request from then
// on: each running node of each pool as the Node DOKS registers (see kubeNode), and each node an
// upgrade is restarting as that Node NotReady; nodes of a shrunk or deleted pool or cluster are
// removed. nil stops it.
func (d *DO) SetNodes(clusterID string, n fakecloud.Nodes) {
	d.s.set(func() {
		d.s.kube.nodes.Set(clusterID, n)
		d.s.kubeLink.sync()
	})
}

// sync brings the registered nodes up to date; it runs with Mu held, after every request.
func (d kubeLink) sync() {
	for _, id := range d.kube.nodes.Clusters() {
		var want []fakecloud.Node
		if cl, ok := d.clusters[id]; ok {
			for _, p := range cl.c.NodePools {
				for _, n := range p.Nodes {
					switch {
					case n.Status != nil && n.Status.State == stateRunning:
						want = append(want, kubeNode(&cl.c, p, n))
					case cl.restarting(n.ID):
						node := kubeNode(&cl.c, p, n)
						node.NotReady = true
						want = append(want, node)
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
func (d kubeLink) servedKubeconfig(id string) ([]byte, bool) {
	kc, ok := d.kube.configs[id]
	return kc, ok
}

// realCredentials replaces made-up credentials by the set kubeconfig's server, CA and token.
func (d kubeLink) realCredentials(id string, creds *godo.KubernetesClusterCredentials) {
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

// expiry is how long credentials asked for by r last: expiry_seconds, or a week when it is
// missing or 0 (the provider sends 0 when its kubeconfig_expire_seconds is not set).
func expiry(r *http.Request) (time.Duration, error) {
	s := r.URL.Query().Get("expiry_seconds")
	if s == "" {
		return defaultCredentialSeconds * time.Second, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("validation error: invalid expiry_seconds %q", s)
	}
	if n == 0 {
		n = defaultCredentialSeconds
	}
	return time.Duration(n) * time.Second, nil
}

// CredentialPrefix starts every token the fake issues in a cluster's credentials, so that a test
// can look for a kubeconfig's token where it must not be (a state file, a log).
const CredentialPrefix = "fakedo-credential-"

// issue makes a cluster's credentials: a new token each time, the cluster's own CA.
func (d kubeLink) issue(w http.ResponseWriter, r *http.Request, id string) (*godo.KubernetesClusterCredentials, *cluster, bool) {
	cl, ok := d.clusters[id]
	if !ok {
		d.notFound(w)
		return nil, nil, false
	}
	ttl, err := expiry(r)
	if err != nil {
		d.invalid(w, "%v", err)
		return nil, nil, false
	}
	if cl.caPEM == nil {
		creds, err := fakecloud.NewCredentials(cl.c.ID)
		if err != nil {
			d.fail(w, http.StatusInternalServerError, "make the cluster's certificate authority: %v", err)
			return nil, nil, false
		}
		cl.caPEM = creds.CA
	}
	return &godo.KubernetesClusterCredentials{
		Server:                   cl.c.Endpoint,
		CertificateAuthorityData: slices.Clone(cl.caPEM),
		Token:                    CredentialPrefix + randomToken(),
		ExpiresAt:                time.Now().UTC().Add(ttl).Truncate(time.Second),
	}, cl, true
}

func (d kubeLink) credentials(w http.ResponseWriter, r *http.Request, id string) {
	if creds, _, ok := d.issue(w, r, id); ok {
		d.realCredentials(id, creds)
		writeJSON(w, http.StatusOK, creds)
	}
}

// kubeconfig is the YAML DigitalOcean serves for kubectl, with a token user.
func (d kubeLink) kubeconfig(w http.ResponseWriter, r *http.Request, id string) {
	creds, cl, ok := d.issue(w, r, id)
	if !ok {
		return
	}
	if kc, ok := d.servedKubeconfig(id); ok {
		w.Header().Set("Content-Type", "text/yaml")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(kc)
		return
	}
	name := "do-" + cl.c.RegionSlug + "-" + cl.c.Name
	user := name + "-admin"
	config := map[string]any{
		"apiVersion": "v1",
		"kind":       "Config",
		"clusters": []any{map[string]any{"name": name, "cluster": map[string]string{
			"server": creds.Server, "certificate-authority-data": base64.StdEncoding.EncodeToString(creds.CertificateAuthorityData),
		}}},
		"contexts":        []any{map[string]any{"name": name, "context": map[string]string{"cluster": name, "user": user}}},
		"current-context": name,
		"users":           []any{map[string]any{"name": user, "user": map[string]string{"token": creds.Token}}},
	}
	out, err := yaml.Marshal(config)
	if err != nil {
		d.fail(w, http.StatusInternalServerError, "render the kubeconfig: %v", err)
		return
	}
	w.Header().Set("Content-Type", "text/yaml")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}
