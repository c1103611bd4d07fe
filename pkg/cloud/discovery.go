package cloud

import (
	"encoding/json"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// This file is what a driver's discovery (Driver.Discover) is asked and answers: the clusters and
// pools of an account, each in the words its manifest writes. The driver reads its cloud and
// knows its kinds' fields; pkg/deploy/discover names the files, reads clusterplane's own tags
// back into metadata and writes the YAML, the same for every cloud.

// Account is the account a discovery reads, and how.
type Account struct {
	// Token is the API token; URL the API's base URL ("" for the cloud's own).
	Token, URL string
	// Transport is how the requests go (timeout, retries, pacer), MaxPages the most pages a list
	// reads before it fails.
	Transport cloudapi.Options
	MaxPages  int
	// Region keeps only the clusters of one region ("" for all); Cluster only the cluster with
	// this name or id, with its pools ("" for all).
	Region, Cluster string
	// Spellable tells whether a manifest's region can spell a region's code: a cluster elsewhere
	// is left out with a note. Required: the rule is the manifests', not the cloud's.
	Spellable func(region string) bool
	// Managed tells whether tags carry clusterplane's resource-kind tag of kind: what
	// clusterplane deployed, which discover leaves out unless asked. Required, as Spellable.
	Managed func(tags []string, kind string) bool
}

// Wanted tells whether a cluster of id and name passes the Cluster filter.
func (a Account) Wanted(id, name string) bool {
	return a.Cluster == "" || a.Cluster == id || a.Cluster == name
}

// Found is what a discovery read.
type Found struct {
	// Clusters are the clusters to write, with their pools.
	Clusters []FoundCluster
	// Besides are the clusters read but not written (filtered out, or skipped with a note): a
	// written cluster's file name still differs from theirs, so names do not depend on a filter.
	Besides []Named
	// Notes are what the files cannot say, one sentence each (a region no manifest can spell).
	Notes []string
	// Requests counts the requests that went to the cloud, retries included.
	Requests int
}

// Named is a cluster as file names need it: its id, its name and its region as the cloud says it.
type Named struct{ ID, Name, Where string }

// FoundCluster is one cluster as its manifest writes it.
type FoundCluster struct {
	Named
	// Region is the region as a manifest writes it (Where is as the cloud says it: the file's
	// header and its order).
	Region string
	// Tags are the cluster's tags without those the cloud adds by itself: clusterplane's own are
	// read back into the manifest's metadata, the rest written as spec.tags.
	Tags []string
	// Spec is the manifest's spec besides clusterName, region, tags and defaultNodePool, by the
	// fields' JSON names.
	Spec map[string]any
	// Default is the default pool (its Spec written as spec.defaultNodePool), Pools the others,
	// each a manifest of its own.
	Default FoundPool
	Pools   []FoundPool
	// Managed says clusterplane deployed the cluster (it carries its kind's resource-kind tag).
	Managed bool
	// Notes are the header's lines after the first: what the manifest could not say.
	Notes []string
}

// FoundPool is one node pool as its manifest (or its cluster's defaultNodePool) writes it.
type FoundPool struct {
	// ID is the pool's id as adopt takes it; Name its name (nodePoolName).
	ID, Name string
	// Tagged says the pool's kind writes tags: Tags are then the pool's, without the cloud's own.
	Tagged bool
	Tags   []string
	// Spec is the pool's spec besides its cluster and tags; an extra pool's manifest is given
	// nodePoolName (Name) besides, a default pool's spec is written as it is.
	Spec map[string]any
	// Managed says clusterplane deployed the pool as a stack of its own.
	Managed bool
	// Notes are the header's lines after the first.
	Notes []string
}

// Literal is a literal value (of a StringValueOrRef field: a network, a firewall) as a manifest
// writes it.
func Literal(v string) json.RawMessage {
	return rawJSON(&sharedv1.StringValueOrRef{LiteralOrRef: &sharedv1.StringValueOrRef_Value{Value: v}})
}

// Taints are a pool's taints as a manifest writes them; nil for none.
func Taints(ts []cloudapi.Taint) []json.RawMessage {
	var out []json.RawMessage
	for _, t := range ts {
		out = append(out, rawJSON(&sharedv1.Taint{Key: t.Key, Value: t.Value,
			Effect: sharedv1.TaintEffect(sharedv1.TaintEffect_value[t.Effect])}))
	}
	return out
}

// rawJSON is a message of the shared API as the JSON a manifest writes for it.
func rawJSON(m proto.Message) json.RawMessage {
	js, err := protojson.Marshal(m)
	if err != nil {
		// Marshalling a valid message of a linked-in type does not fail; should it, null
		// leaves the field unset and discover's tests say so.
		return json.RawMessage("null")
	}
	return js
}
