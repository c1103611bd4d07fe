// Package defaultpool is the tag by which DigitalOcean's provider reads a cluster's default node
// pool, which an import of a cluster needs on one pool (digitalocean.Client's EnsureDefaultPool
// writes it, through DigitalOcean's one pool client).
//
// The DigitalOcean provider imports a cluster only when exactly one of its pools carries the tag
// terraform:default-node-pool (resourceDigitalOceanKubernetesClusterImportState in
// terraform-provider-digitalocean v2.75.0, digitalocean/kubernetes/resource_kubernetes_cluster.go):
// with one pool it adds the tag itself, with several untagged pools it refuses. Clusters made by
// doctl or the control panel carry no such tag, so adopting one with extra pools needs the tag
// first, on the pool the manifest names as its default pool. Adding a tag to a pool changes
// nothing else on it: the request sends the tags only.
package defaultpool

// Tag is the tag the DigitalOcean provider reads a cluster's default pool by
// (terraform-provider-digitalocean, resource_kubernetes_node_pool.go,
// DigitaloceanKubernetesDefaultNodePoolTag): adoption tags the pool the manifest names, the fleet
// scan reads the tagged pool as the cluster's nodePool, and a rotated default pool must carry it
// for the cluster to keep its id (the kinds' effects give it to pkg/change/rotation). It lives
// here, with the driver, as a DigitalOcean fact, not in shared code.
const Tag = "terraform:default-node-pool"
