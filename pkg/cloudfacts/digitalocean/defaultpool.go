package digitalocean

import (
	"fmt"
	"regexp"
)

// DefaultPoolField is the manifest's path of a DigitalOcean cluster's default node pool.
const DefaultPoolField = "spec.defaultNodePool"

// DefaultPoolGoneError: DigitalOcean lists cluster Cluster with pools, none tagged DefaultPoolTag.
// Its default pool was deleted, or its tag removed, outside clusterplane. The provider's read sets
// the cluster's node_pool only from a pool carrying the tag and otherwise keeps the one the state
// recorded (terraform-provider-digitalocean v2.75.0,
// digitalocean/kubernetes/resource_kubernetes_cluster.go, digitaloceanKubernetesClusterRead), so
// the engine finds no change, and an up that changes the default pool would update a pool that is
// gone. The cluster module refuses to deploy such a cluster; the CLI reads the refusal back from
// the engine's words (ReadDefaultPoolGone, where the backend reads them), and drift takes it as
// the cloud's change it is.
type DefaultPoolGoneError struct {
	Cluster string
}

func (e *DefaultPoolGoneError) Error() string {
	return DefaultPoolField + ": " + e.Reason()
}

// Reason is the error's words after its field.
func (e *DefaultPoolGoneError) Reason() string {
	return fmt.Sprintf("DigitalOcean lists no pool of cluster %s tagged %s: its default pool was deleted, or the tag "+
		"removed, outside clusterplane, and no up can deploy the pool it recorded. Tag the pool that is to be the default "+
		"with %s (or make one), then run drift", e.Cluster, DefaultPoolTag, DefaultPoolTag)
}

// defaultPoolGone matches a DefaultPoolGoneError's text wherever the engine quotes it.
var defaultPoolGone = regexp.MustCompile(regexp.QuoteMeta(DefaultPoolField+": DigitalOcean lists no pool of cluster ") + `(\S+)` +
	regexp.QuoteMeta(" tagged "+DefaultPoolTag+":"))

// ReadDefaultPoolGone finds a DefaultPoolGoneError in text (what the engine said of a failed
// preview or up); nil when there is none.
func ReadDefaultPoolGone(text string) *DefaultPoolGoneError {
	m := defaultPoolGone.FindStringSubmatch(text)
	if m == nil {
		return nil
	}
	return &DefaultPoolGoneError{Cluster: m[1]}
}
