package standin

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"
)

// The Terraform resources behind the served Pulumi types, as pkg/effects names their attributes.
const (
	doCluster    = "digitalocean_kubernetes_cluster"
	doNodePool   = "digitalocean_kubernetes_node_pool"
	civoCluster  = "civo_kubernetes_cluster"
	civoNodePool = "civo_kubernetes_node_pool"
	civoFirewall = "civo_firewall"
)

// previousCivoPool is the civo provider's pool, which the previous release registered and the
// clusterplane plugin now replaces: it is still served, without effects facts (every change an
// update), so that e2e can deploy a stack of that release and show it taken over in place.
const previousCivoPool = "civo:index/kubernetesNodePool:KubernetesNodePool"

// terraformResources maps each served type token to its Terraform resource.
var terraformResources = map[string]string{
	"digitalocean:index/kubernetesCluster:KubernetesCluster":   doCluster,
	"digitalocean:index/kubernetesNodePool:KubernetesNodePool": doNodePool,
	"civo:index/kubernetesCluster:KubernetesCluster":           civoCluster,
	previousCivoPool:               civoNodePool,
	"civo:index/firewall:Firewall": civoFirewall,
}

// idPrefixes make ids that say what they are, in the cloud directory and in state.
var idPrefixes = map[string]string{
	doCluster: "docluster", doNodePool: "dopool", civoCluster: "civocluster", civoNodePool: "civopool", civoFirewall: "civofirewall",
}

// sensitive are the outputs the real providers mark Sensitive; they go out as secrets.
var sensitive = map[string]map[string]bool{
	doCluster:   {"kubeConfigs": true},
	civoCluster: {"kubeconfig": true},
}

// newID is a fresh id for a resource of the Terraform resource tf: random, because each engine
// run starts the plugin anew and a counter would repeat.
func newID(tf string) string { return idPrefixes[tf] + "-" + randomHex(4) }

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on the platforms Go supports
	}
	return hex.EncodeToString(b)
}

// complete fills in what the cloud computes for a resource of tf with id from its outputs (the
// inputs, on create): values it assigns once (ids, addresses, creation time) are kept when
// present; values that follow the inputs (nodes per node count, the kubeconfig's cluster name)
// are recomputed. It is run on create, update and read, so the cloud is always consistent.
func complete(tf, id string, out map[string]any, now time.Time) {
	stamp := now.UTC().Format(time.RFC3339)
	out["id"] = id
	switch tf {
	case doCluster:
		keep(out, "clusterUrn", "do:kubernetes:"+id)
		keep(out, "endpoint", "https://"+id+".k8s.ondigitalocean.com")
		keep(out, "ipv4Address", "203.0.113."+fmt.Sprint(1+int(id[len(id)-1])%250))
		keep(out, "status", "running")
		keep(out, "createdAt", stamp)
		keep(out, "updatedAt", stamp)
		// Optional+Computed: DigitalOcean chooses when the module sends none.
		keep(out, "vpcUuid", fakeUUID(id))
		keep(out, "clusterSubnet", "10.244.0.0/16")
		keep(out, "serviceSubnet", "10.245.0.0/16")
		keep(out, "maintenancePolicy", map[string]any{"day": "any", "startTime": "00:00"})
		if mp, ok := out["maintenancePolicy"].(map[string]any); ok {
			keep(mp, "duration", "4h0m0s")
		}
		expires := now.Add(7 * 24 * time.Hour).UTC().Format(time.RFC3339)
		if old, ok := out["kubeConfigs"].([]any); ok && len(old) == 1 {
			if m, ok := old[0].(map[string]any); ok {
				if e, ok := m["expiresAt"].(string); ok {
					expires = e
				}
			}
		}
		out["kubeConfigs"] = []any{map[string]any{
			"rawConfig":            fmt.Sprintf("apiVersion: v1\nkind: Config\n# fake kubeconfig for %v", out["name"]),
			"expiresAt":            expires,
			"host":                 out["endpoint"],
			"token":                "fake-token-" + id,
			"clusterCaCertificate": "ZmFrZS1jYQ==",
			"clientCertificate":    "",
			"clientKey":            "",
		}}
		if pool, ok := out["nodePool"].(map[string]any); ok {
			keep(pool, "id", newID(doNodePool))
			doNodes(pool, stamp)
		}
	case doNodePool:
		doNodes(out, stamp)
	case civoCluster:
		keep(out, "createdAt", stamp)
		keep(out, "status", "ACTIVE")
		keep(out, "ready", true)
		keep(out, "masterIp", "198.51.100."+fmt.Sprint(1+int(id[len(id)-1])%250))
		keep(out, "apiEndpoint", fmt.Sprintf("https://%v:6443", out["masterIp"]))
		keep(out, "dnsEntry", id+".k8s.civo.com")
		keep(out, "installedApplications", []any{})
		// Optional+Computed: Civo chooses when the module sends none.
		keep(out, "region", "LON1")
		keep(out, "networkId", "default-network-"+id)
		keep(out, "kubernetesVersion", "1.30.5-k3s1")
		keep(out, "cni", "flannel")
		keep(out, "clusterType", "k3s")
		// The provider leaves the kubeconfig out of state unless writeKubeconfig is set.
		if out["writeKubeconfig"] == true {
			out["kubeconfig"] = fmt.Sprintf("apiVersion: v1\nkind: Config\n# fake kubeconfig for %v\n# server: %v\n", out["name"], out["apiEndpoint"])
		} else {
			delete(out, "kubeconfig")
		}
		if pools, ok := out["pools"].(map[string]any); ok {
			keep(pools, "label", "pool-"+id)
			keep(pools, "publicIpNodePool", false)
			civoInstances(pools, id)
			out["numTargetNodes"] = pools["nodeCount"]
			out["targetNodesSize"] = pools["size"]
		}
	case civoNodePool:
		keep(out, "label", "pool-"+id)
		keep(out, "publicIpNodePool", false)
		civoInstances(out, id)
	case civoFirewall:
		keep(out, "region", "LON1")
		keep(out, "networkId", "default-network-"+id)
	}
}

// keep sets m[key] to v unless it holds a value.
func keep(m map[string]any, key string, v any) {
	if cur, ok := m[key]; !ok || cur == nil {
		m[key] = v
	}
}

// desiredNodes is the node count the cloud runs a pool at: the count sent, else the autoscaler's
// minimum, else one.
func desiredNodes(pool map[string]any) int {
	if n, ok := pool["nodeCount"].(float64); ok {
		return int(n)
	}
	if n, ok := pool["nodeCount"].(int); ok {
		return n
	}
	if pool["autoScale"] == true {
		if n, ok := pool["minNodes"].(float64); ok && n > 0 {
			return int(n)
		}
	}
	return 1
}

// doNodes keeps a DigitalOcean pool's nodes at its node count: existing nodes stay, new ones are
// added at the end, surplus ones removed from the end.
func doNodes(pool map[string]any, stamp string) {
	n := desiredNodes(pool)
	nodes, _ := pool["nodes"].([]any)
	for len(nodes) < n {
		name := fmt.Sprintf("%v-%s", pool["name"], randomHex(2))
		nodes = append(nodes, map[string]any{
			"id": "node-" + randomHex(4), "name": name, "status": "running", "dropletId": fmt.Sprint(100000 + len(nodes)),
			"createdAt": stamp, "updatedAt": stamp,
		})
	}
	pool["nodes"] = nodes[:n]
	pool["nodeCount"] = n
	pool["actualNodeCount"] = n
}

// civoInstances keeps a Civo pool's instance names at its node count.
func civoInstances(pool map[string]any, id string) {
	n := desiredNodes(pool)
	names, _ := pool["instanceNames"].([]any)
	for len(names) < n {
		names = append(names, fmt.Sprintf("k3s-%s-node-%s", id, randomHex(2)))
	}
	pool["instanceNames"] = names[:n]
}

// fakeUUID is a UUID-shaped string that depends on id only.
func fakeUUID(id string) string {
	h := hex.EncodeToString([]byte(id + "0000000000000000"))[:32]
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
