// Package body turns the API's request bodies (the seed's shape: name, cluster_id, and a spec
// with platform.type and that cloud's block, autoscaling and nodeCount) into clusterplane
// manifests, and the manifests' problems back into the fields as the body wrote them. The API
// checks a body with the same reader and rules as `clusterplane validate`, and the workers deploy
// the same manifest, so a body means one thing everywhere.
package body

import (
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/pkg/errors"
)

// Body is a create or update request of a cluster or a node pool.
type Body struct {
	Name      string `json:"name"`
	ClusterID string `json:"cluster_id,omitempty"`
	Spec      Spec   `json:"spec"`
}

// Spec is a body's spec. Platform holds the cloud's block as the client wrote it: the fields of
// the kind's manifest spec (clusterplane explain), passed on untouched.
type Spec struct {
	Platform    Platform     `json:"platform"`
	Autoscaling *Autoscaling `json:"autoscaling,omitempty"`
	NodeCount   *int64       `json:"nodeCount,omitempty"`
}

// Platform names the cloud (a cloud's ID, as its driver says it) and carries its block, written
// under the cloud's ID: {"type": "civo", "civo": {...}}. The platform is the cloud: one word
// for one thing, its blocks one per cloud a driver knows (platform.go).
type Platform struct {
	Type string `json:"type"`
	// Blocks are the clouds' blocks by cloud ID, as the client wrote them; a block written null
	// is absent.
	Blocks map[string]map[string]json.RawMessage `json:"-"`
}

// Autoscaling is the seed's autoscaling block, for node pools.
type Autoscaling struct {
	Enabled  bool   `json:"enabled"`
	MinNodes *int64 `json:"minNodes,omitempty"`
	MaxNodes *int64 `json:"maxNodes,omitempty"`
}

// Problem is one mistake of a body: the field as the body wrote it, and what is wrong.
type Problem struct {
	Field   string `json:"field"`
	Rule    string `json:"rule,omitempty"`
	Message string `json:"message"`
}

// ProblemsError is every problem of a body at once.
type ProblemsError struct{ Problems []Problem }

func (e *ProblemsError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.Field + ": " + p.Message
	}
	return strings.Join(lines, "; ")
}

// Parse reads a body strictly: an unknown field is a problem, as in a manifest.
func Parse(data []byte) (Body, error) {
	var b Body
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return b, &ProblemsError{Problems: []Problem{{Field: "(body)", Rule: "json", Message: jsonMessage(err)}}}
	}
	if dec.More() {
		return b, &ProblemsError{Problems: []Problem{{Field: "(body)", Rule: "json", Message: "more than one JSON value"}}}
	}
	return b, nil
}

// jsonMessage is the decoder's error without Go's type names where a client needs none.
func jsonMessage(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		want := map[reflect.Kind]string{reflect.String: "a string", reflect.Bool: "true or false", reflect.Int64: "a whole number",
			reflect.Map: "an object", reflect.Struct: "an object", reflect.Slice: "a list"}[typeErr.Type.Kind()]
		if want == "" {
			want = "another JSON type"
		}
		return "field " + typeErr.Field + " must be " + want + ", not " + typeErr.Value
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	for _, seed := range []string{"gcp", "aws", "azure"} {
		if strings.Contains(msg, `unknown field "`+seed+`"`) {
			return `unknown field "` + seed + `": the platforms are ` + strings.Join(Platforms(), " and ") + ` (spec.platform.type, with its block)`
		}
	}
	return msg
}

// Cluster is what a node pool's manifest needs of its cluster: the manifest name, platform and
// region (a Civo pool is in its cluster's region).
type Cluster struct {
	Name     string
	Platform string
	Region   string
}

// Stored is the body a stored object was written with: its name, cluster and spec.
func Stored(name, clusterID string, spec json.RawMessage) (Body, error) {
	b := Body{Name: name, ClusterID: clusterID}
	return b, errors.Wrap(json.Unmarshal(spec, &b.Spec), "read the stored spec")
}

// KindName is the manifest kind of a platform's cluster, or its pool.
func KindName(platform string, pool bool) string {
	_, kind := kindOf(platform, pool)
	return kind
}

// Clusters reads a stored cluster by its id (the store does): its name and spec as written,
// which Stored reads into its body.
type Clusters interface {
	ClusterSpec(ctx context.Context, id string) (name string, spec json.RawMessage, err error)
}

// Manifest is the manifest a worker deploys for a body: a cluster's, or a pool's (pool set),
// whose manifest needs its cluster, clusterID, read from clusters. The API checks a body with
// the manifest made here too, so that what it accepts is what the worker deploys.
func Manifest(ctx context.Context, b Body, pool bool, clusterID string, clusters Clusters) ([]byte, error) {
	if !pool {
		return ClusterManifest(b)
	}
	name, spec, err := clusters.ClusterSpec(ctx, clusterID)
	if err != nil {
		return nil, err
	}
	cb, err := Stored(name, "", spec)
	if err != nil {
		return nil, err
	}
	return PoolManifest(b, ClusterOf(cb))
}

// ClusterOf is what a pool's manifest needs of its cluster's body.
func ClusterOf(cb Body) Cluster {
	// No region: the pool's manifest says what is missing.
	return Cluster{Name: cb.Name, Platform: cb.Spec.Platform.Type, Region: cb.Spec.Region()}
}

// Region is the region the spec's block names; "" for a pool's, which has none (a Civo pool is
// in its cluster's region, a DigitalOcean pool in its cluster).
func (s Spec) Region() string {
	var region string
	_ = json.Unmarshal(s.Platform.Block()[kindfield.SpecRegion], &region)
	return region
}

// DesiredNodes is how many nodes the spec asks for: a pool's nodeCount, or a cluster's default
// pool's; false when it names none (an autoscaled pool may not).
func (s Spec) DesiredNodes() (int64, bool) {
	if s.NodeCount != nil {
		return *s.NodeCount, true
	}
	var pool map[string]json.RawMessage
	var n *int64
	if json.Unmarshal(s.Platform.Block()[kindfield.SpecDefaultNodePool], &pool) != nil ||
		json.Unmarshal(pool[kindfield.SpecNodeCount], &n) != nil || n == nil {
		return 0, false
	}
	return *n, true
}

// Protected tells whether a cluster's spec keeps the cluster from being destroyed:
// deletionProtection, absent meaning true, as in the manifest.
func (s Spec) Protected() bool {
	var p *bool
	_ = json.Unmarshal(s.Platform.Block()[kindfield.SpecDeletionProtection], &p)
	return p == nil || *p
}

// Block is the block of the platform's type (nil for an unknown type).
func (p Platform) Block() map[string]json.RawMessage {
	if _, ok := kindsOf(p.Type); !ok {
		return nil
	}
	return p.Blocks[p.Type]
}

// kindOf is the manifest kind of a platform's cluster or pool.
func kindOf(platform string, pool bool) (apiVersion, kind string) {
	k, _ := kindsOf(platform)
	if pool {
		return k.APIVersion, k.Pool
	}
	return k.APIVersion, k.Cluster
}

// block is the platform's block, with a problem when the type and block do not match.
func (s Spec) block() (map[string]json.RawMessage, []Problem) {
	if _, ok := kindsOf(s.Platform.Type); !ok {
		return nil, []Problem{{Field: "spec.platform.type", Rule: "platform.type", Message: "must be " + strings.Join(Platforms(), " or ")}}
	}
	for _, other := range Platforms() {
		if other != s.Platform.Type && s.Platform.Blocks[other] != nil {
			return nil, []Problem{{Field: "spec.platform." + other, Rule: "platform.block",
				Message: "platform.type is " + s.Platform.Type + ": write its block as platform." + s.Platform.Type}}
		}
	}
	return s.Platform.Blocks[s.Platform.Type], nil
}

// ClusterManifest is the manifest of a cluster's body: metadata.name is the body's name, and
// the cloud's clusterName defaults to it.
func ClusterManifest(b Body) ([]byte, error) {
	var problems []Problem
	if b.ClusterID != "" {
		problems = append(problems, Problem{Field: "cluster_id", Rule: "cluster.no_cluster_id", Message: "a cluster belongs to no cluster: leave cluster_id out"})
	}
	// Each field is named as the body wrote it: a body with autoscaling alone is told of autoscaling.
	inPool := "a cluster's nodes are its default pool's: write them in spec.platform." + b.Spec.Platform.Type + "." + kindfield.SpecDefaultNodePool
	if b.Spec.Autoscaling != nil {
		problems = append(problems, Problem{Field: "spec.autoscaling", Rule: "cluster.pool_fields", Message: inPool})
	}
	if b.Spec.NodeCount != nil {
		problems = append(problems, Problem{Field: "spec.nodeCount", Rule: "cluster.pool_fields", Message: inPool})
	}
	block, more := b.Spec.block()
	problems = append(problems, more...)
	if problems != nil {
		return nil, &ProblemsError{Problems: problems}
	}
	spec := copyBlock(block)
	if _, ok := spec[kindfield.SpecClusterName]; !ok {
		spec[kindfield.SpecClusterName] = b.Name
	}
	apiVersion, kind := kindOf(b.Spec.Platform.Type, false)
	return manifest(apiVersion, kind, b.Name, spec)
}

// PoolName is the manifest name of a pool of a cluster: both names, as a pool's stack is
// named after the manifest and two clusters may each have a pool called workers.
func PoolName(cluster, pool string) string { return cluster + "-" + pool }

// PoolManifest is the manifest of a node pool's body in cluster c: the cloud's nodePoolName is
// the body's name, the cluster is read from the cluster's stack (no id copied), and the seed's
// nodeCount and autoscaling become the kind's nodeCount, autoScale, minNodes and maxNodes.
func PoolManifest(b Body, c Cluster) ([]byte, error) {
	block, problems := b.Spec.block()
	if problems == nil && b.Spec.Platform.Type != c.Platform {
		problems = append(problems, Problem{Field: "spec.platform.type", Rule: "nodepool.platform", Message: "the cluster is on " + c.Platform + ": a pool is on its cluster's platform"})
	}
	for _, f := range seedFields {
		if _, ok := block[f]; ok {
			problems = append(problems, Problem{Field: "spec.platform." + b.Spec.Platform.Type + "." + f, Rule: "nodepool.seed_field",
				Message: "written by the API from " + seedField(f) + ": leave it out of the platform block"})
		}
	}
	if problems != nil {
		return nil, &ProblemsError{Problems: problems}
	}
	spec := copyBlock(block)
	apiVersion, kind := kindOf(c.Platform, true)
	_, clusterKind := kindOf(c.Platform, false)
	spec[kindfield.SpecNodePoolName] = b.Name
	// valueFrom's kind and name are a shared reference's fields, which kindfield (the kinds' own
	// messages) does not name.
	spec[kindfield.SpecCluster] = map[string]any{"valueFrom": map[string]any{"kind": clusterKind, "name": c.Name}}
	// A pool of a cloud whose API is per region is in its cluster's region.
	if _, ok := spec[kindfield.SpecRegion]; !ok && poolRegion(c.Platform) && c.Region != "" {
		spec[kindfield.SpecRegion] = c.Region
	}
	if b.Spec.NodeCount != nil {
		spec[kindfield.SpecNodeCount] = *b.Spec.NodeCount
	}
	if a := b.Spec.Autoscaling; a != nil {
		spec[kindfield.SpecAutoScale] = a.Enabled
		if a.MinNodes != nil {
			spec[kindfield.SpecMinNodes] = *a.MinNodes
		}
		if a.MaxNodes != nil {
			spec[kindfield.SpecMaxNodes] = *a.MaxNodes
		}
	}
	return manifest(apiVersion, kind, PoolName(c.Name, b.Name), spec)
}

// manifest is a manifest's text: its kind, metadata.name (metadata's name is a shared message's
// field, which kindfield does not name) and spec.
func manifest(apiVersion, kind, name string, spec map[string]any) ([]byte, error) {
	return json.Marshal(map[string]any{kindfield.TargetApiVersion: apiVersion, kindfield.TargetKind: kind,
		kindfield.TargetMetadata: map[string]any{"name": name}, kindfield.TargetSpec: spec})
}

func copyBlock(block map[string]json.RawMessage) map[string]any {
	spec := make(map[string]any, len(block)+4)
	for k, v := range block {
		spec[k] = v
	}
	return spec
}

// seedFields are the fields of a pool's manifest spec the API writes from the body's own, each
// with the body's field it is written from: a pool's platform block must not have them.
var seedFields = []string{kindfield.SpecNodeCount, kindfield.SpecAutoScale, kindfield.SpecMinNodes, kindfield.SpecMaxNodes,
	kindfield.SpecNodePoolName, kindfield.SpecCluster}

// seedField is the body's field a pool manifest's field is written from.
func seedField(manifestField string) string {
	return map[string]string{kindfield.SpecNodeCount: "spec.nodeCount", kindfield.SpecAutoScale: "spec.autoscaling.enabled",
		kindfield.SpecMinNodes: "spec.autoscaling.minNodes", kindfield.SpecMaxNodes: "spec.autoscaling.maxNodes",
		kindfield.SpecNodePoolName: "name", kindfield.SpecCluster: "cluster_id"}[manifestField]
}

// Field is a manifest's field (as stackinput.Problem writes it) as the body wrote it.
func Field(manifestPath, platform string) string {
	switch {
	case manifestPath == "" || manifestPath == kindfield.TargetMetadata || strings.HasPrefix(manifestPath, kindfield.TargetMetadata+"."):
		return "name"
	case manifestPath == kindfield.TargetSpec+"."+kindfield.SpecClusterName:
		return "name"
	}
	rest, ok := strings.CutPrefix(manifestPath, kindfield.TargetSpec+".")
	if !ok {
		return manifestPath
	}
	head, _, _ := strings.Cut(rest, ".")
	head, _, _ = strings.Cut(head, "[")
	switch seed := seedField(head); {
	case head == kindfield.SpecCluster || head == kindfield.SpecNodePoolName:
		return seed // written whole by the API from the body's field
	case seed != "":
		return seed + strings.TrimPrefix(rest, head)
	}
	return "spec.platform." + platform + "." + rest
}

// fieldsHint is how a manifest's unknown field lists the fields it could have been.
const fieldsHint = "the fields here are "

// blockFields is the hint of an unknown field in a pool's platform block with the fields the API
// writes from the body's own (nodeCount, cluster, ...) left out: a block must not have them.
func blockFields(hint string) string {
	list, ok := strings.CutPrefix(hint, fieldsHint)
	if !ok {
		return hint
	}
	var kept []string
	for _, f := range strings.Split(list, ", ") {
		if seedField(f) == "" {
			kept = append(kept, f)
		}
	}
	return fieldsHint + strings.Join(kept, ", ")
}

// seedWords are the words of a pool manifest's rules that the body writes otherwise.
var seedWords = regexp.MustCompile(`\b(` + strings.Join([]string{kindfield.SpecAutoScale, kindfield.SpecMinNodes,
	kindfield.SpecMaxNodes, kindfield.SpecNodePoolName}, "|") + `)\b`)

// Problems is a manifest's reading errors (a *stackinput.Error, or Read's *deploytarget.ProblemsError
// of them) as the body's problems, sorted by field; a pool's messages say the body's words
// (autoscaling.enabled, not autoScale). Any other error comes back as it is.
func Problems(err error, platform string, pool bool) error {
	read, ok := readProblems(err)
	if !ok {
		return err
	}
	out := make([]Problem, 0, len(read))
	for _, p := range read {
		msg, hint := p.Message, p.Hint
		if pool && p.RuleID == "field.unknown" && strings.Count(p.Path, ".") == 1 {
			hint = blockFields(hint)
		}
		if hint != "" {
			msg += " (" + hint + ")"
		}
		if pool {
			msg = seedWords.ReplaceAllStringFunc(msg, func(w string) string { return Field(kindfield.TargetSpec+"."+w, platform) })
		}
		out = append(out, Problem{Field: Field(p.Path, platform), Rule: p.RuleID, Message: msg})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return &ProblemsError{Problems: out}
}

// readProblems are the reading problems err holds: a *stackinput.Error's, or those of every one
// a *deploytarget.ProblemsError holds; false when err holds anything else.
func readProblems(err error) ([]stackinput.Problem, bool) {
	var many *deploytarget.ProblemsError
	if !errors.As(err, &many) {
		var read *stackinput.Error
		if !errors.As(err, &read) {
			return nil, false
		}
		return read.Problems, true
	}
	var out []stackinput.Problem
	for _, e := range many.Problems {
		var read *stackinput.Error
		if !errors.As(e, &read) {
			return nil, false
		}
		out = append(out, read.Problems...)
	}
	return out, true
}
