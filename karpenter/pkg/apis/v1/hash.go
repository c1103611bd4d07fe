package v1

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
)

// Hash is the spec's hash as the drift annotation carries it: what a node's pool was made with
// (the cluster, labels, taints, tags). The size terms are not in it: a node whose size the terms
// still select has not drifted when they change, and one whose size they no longer select is
// found drifted by its size (cloudprovider's IsDrifted).
func (s NodeClassSpec) Hash() string {
	tags := slices.Clone(s.Tags)
	slices.Sort(tags)
	// encoding/json writes a map's keys sorted, so equal specs give equal bytes.
	b, _ := json.Marshal(struct {
		Cluster ClusterRef
		Labels  map[string]string
		Taints  any
		Tags    []string
	}{s.Cluster, s.Labels, s.Taints, tags})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}
