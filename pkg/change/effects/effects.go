// Package effects is what changing each manifest field does once deployed: updated in place,
// replaced, refused or ignored, on which registered resource, and why. It holds the table's
// shape and each cloud's shared facts (its resource types, sources and reasons); each kind's
// table is built in its own folder (iac/pulumi/<kind>/kind/effects.go) from them. The tables are
// the single source for `diff`, for the "Changing it ..." sentences of the proto comments and for
// docs/pitfalls.md; tests hold all three, and the pinned providers' own table
// (../shared/providers/change-effects.json), to them.
package effects

import (
	"sort"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
	"github.com/clusterplane/clusterplane/pkg/plugin"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Effect is what deploying a changed field does.
type Effect string

// The effects, from harmless to harmful.
const (
	// Update changes the resource in place.
	Update Effect = "update"
	// Ignored means the module deliberately leaves the field to the cloud (or to nobody), so the
	// change is not sent.
	Ignored Effect = "ignored"
	// Refused means the provider rejects the change at preview or apply, the module refuses it,
	// or the change would silently not happen; either way it cannot be deployed as is.
	Refused Effect = "refused"
	// Replace deletes the resource and creates it anew: what ran on it is lost.
	Replace Effect = "replace"
	// Rotate carries out what would replace a node pool (or refuse a change to it) the way the
	// pool's rollout block allows: a pool with the new settings next to the old one, the old one
	// drained and deleted. diff decides it; no row has it as its Effect.
	Rotate Effect = "rotate"
)

// Blocks tells whether a change with this effect must stop a deployment gate.
func (e Effect) Blocks() bool { return e == Replace || e == Refused }

// Refusal is what happens when a refused change is deployed anyway (clusterplane's gate keeps it
// from being deployed): the end-to-end tests deploy each refused change past the gate on the real
// providers and hold this against what they do.
type Refusal string

// The refusals.
const (
	// FailsAtPreview: the provider, or the module, rejects the change when the engine previews it.
	FailsAtPreview Refusal = "fails-at-preview"
	// FailsAtApply: the preview looks fine; the cloud's API, or the provider, fails the update.
	FailsAtApply Refusal = "fails-at-apply"
	// NotApplied: the update succeeds without reaching the cloud: the next refresh shows the change
	// pending again.
	NotApplied Refusal = "not-applied"
	// Kept: the provider keeps the value the resource has; the preview shows no change, and the
	// manifest and the cloud disagree from then on.
	Kept Refusal = "kept"
	// Protected: the engine refuses to replace a cluster with deletion protection.
	Protected Refusal = "protected"
	// Invalid: the manifest's rules refuse every value but the one a change would leave, so no
	// valid manifest makes it.
	Invalid Refusal = "invalid"
	// Identity: the field names the stack's manifest, so clusterplane refuses a change of it on
	// the stack whatever the flags; the manifest with the new value names a stack of its own.
	Identity Refusal = "identity"
)

// Decision is what deploying one change does, and why.
type Decision struct {
	Effect Effect
	Reason string
	// Refusal, for a refused change, is what the provider does with it when deployed anyway.
	Refusal Refusal
}

// Role is the part a registered resource plays in a stack; Types maps it to its type token.
type Role string

// The roles.
const (
	Cluster  Role = "cluster"
	NodePool Role = "nodePool"
	Firewall Role = "firewall"
	Provider Role = "provider"
	// Component is the component resource: a change that touches no cloud resource lands there.
	Component Role = "component"
	// Stack stands for every resource of the stack at once.
	Stack Role = "stack"
)

// Change is one field's change, for a Row's When.
type Change struct {
	// Old and New are the field's values; an unset field holds its default.
	Old, New protoreflect.Value
	// OldSpec and NewSpec are the specs the change is part of, for conditions on other fields.
	OldSpec, NewSpec protoreflect.Message
	// Removed tells that the field was set (or non-empty) in the old spec and is not in the new.
	Removed bool
}

// SpecStrings are the string field jsonName of the old and of the new spec ("" where unset or
// not a string), for a condition on a field other than the row's. A cloud's facts shared by its
// kinds (under pkg/cloud) read the specs through it: pkg/cloud may not import pkg/manifest, which
// imports pkg/cloud.
func (c Change) SpecStrings(jsonName string) (was, now string) {
	return protofield.String(c.OldSpec, jsonName), protofield.String(c.NewSpec, jsonName)
}

// NewSpecBool is the bool field jsonName of the new spec (false where unset or not a bool), as
// SpecStrings is for strings.
func (c Change) NewSpecBool(jsonName string) bool { return protofield.Bool(c.NewSpec, jsonName) }

// Row is what changing one manifest field does.
type Row struct {
	// Path is the field's path in the manifest as written, in camelCase, e.g.
	// "spec.defaultNodePool.size". A map, list or reference field is one row.
	Path string
	// Resource is the registered resource the change lands on.
	Resource Role
	// Attribute is the provider's attribute the field is sent as, "<terraform resource>.<attribute>"
	// as in the providers' change-effects table, e.g. "digitalocean_kubernetes_cluster.node_pool.size";
	// empty when the module does not send the field as such.
	Attribute string
	// Effect is what a change does.
	Effect Effect
	// Reason says why, and for a replacement what is lost.
	Reason string
	// Refusal, when Effect is Refused, is what the provider does with the change deployed anyway.
	Refusal Refusal
	// When, if set, refines Effect for a particular change (a version lowered, a flag turned off,
	// a field the module leaves to the cloud under another setting); ok false keeps Effect.
	When func(c Change) (d Decision, ok bool)
	// Negated tells that the attribute is the field's negation (disableSurgeUpgrade is sent as
	// surge_upgrade = !disableSurgeUpgrade): a property's value read in the manifest's terms is
	// the opposite, and values shown against the manifest are turned round first.
	Negated bool
	// Removed, if set, is what removing the field does (unsetting it, or emptying its list or
	// map) where that differs from Effect: an Optional+Computed attribute the module stops
	// sending keeps its old value, and an API client that omits empty values cannot clear one.
	// Nil means the module sends an explicit value when the field is absent, so removing it
	// changes the resource as Effect says, to the default the field's comment names. iac/pulumi/
	// registry's tests run each module without the field to hold every Optional and Computed
	// attribute to one or the other.
	Removed *Decision
	// Rollout, when set, is the path of the rollout block (e.g. "spec.rollout") under which a
	// change this row replaces or refuses can be carried out by rotating the pool instead: the
	// cloud refuses only an in-place change, and a new pool can have the new value.
	Rollout string
}

// Table is the effects table of one manifest kind.
type Table struct {
	// Name is the manifest kind, e.g. "DigitalOceanKubernetesCluster".
	Name string
	// Types are the type tokens of the resources the kind registers, by role; the component's is
	// plugin.ComponentType of the kind.
	Types map[Role]string
	// Protected are the roles that deletion protection protects; empty for kinds without it.
	Protected []Role
	// Rows are the fields' effects, sorted by path.
	Rows []Row
	// Attributes are the provider's facts about every attribute the kind's module sends, by
	// name ("digitalocean_kubernetes_cluster.node_pool.labels").
	Attributes map[string]Attribute
	// ReadBack maps a property the module sends (Pulumi names, dots between them) to the one the
	// provider reads it back as when it imports the resource, where they differ: an import knows
	// only what the cloud says, and the provider may file it under another name.
	ReadBack map[string]string
	// NeverReadBack are the properties the provider never reads from the cloud (Pulumi names):
	// the state holds only what was last sent, nothing after an import, so neither drift nor an
	// import's check can compare them with the cloud.
	NeverReadBack map[string]bool
	// Pools is how the kind's cloud moves a pool that a rotation replaces (pkg/change/rotation
	// plans the moves from it); zero for a kind whose pools do not rotate.
	Pools PoolMoves
}

// PoolMoves is how a cloud moves a node pool that a rotation replaces, as its kinds say it.
type PoolMoves struct {
	// Cloud names the cloud as messages say it.
	Cloud string
	// Renames tells that the cloud renames a pool in place: the surge pool takes the manifest's
	// name at the end. A cloud that does not names a pool once, so the workloads go through a
	// surge pool and back to a new pool of the manifest's name.
	Renames bool
	// DefaultPoolTag is the tag by which the cloud's provider finds a cluster's default pool,
	// which a rotated default pool must take for the cluster to keep its id; "" when none.
	DefaultPoolTag string
}

// Attribute is what the pinned provider's source says about one attribute a module sends. Rows
// name it in Attribute; an attribute no row names is a module constant and says why.
type Attribute struct {
	// Required, Optional, Computed and ForceNew are the Terraform schema's flags. An Optional
	// and Computed attribute keeps its last value when it is no longer sent.
	Required, Optional, Computed, ForceNew bool
	// Source is where the flags and the update behaviour are read: the provider's file and
	// function, and for the wire the API client's request type.
	Source string
	// Wire, when set, says what the API client puts on the wire that matters for a change, e.g.
	// an omitempty tag that never carries an empty map.
	Wire string
	// Constant, when set, says why no manifest field maps to the attribute: the module always
	// sends the same value.
	Constant string
}

// Lookup returns the row of path.
func (k *Table) Lookup(path string) (Row, bool) {
	i := sort.Search(len(k.Rows), func(i int) bool { return k.Rows[i].Path >= path })
	if i < len(k.Rows) && k.Rows[i].Path == path {
		return k.Rows[i], true
	}
	return Row{}, false
}

// Decide returns what changing the row's field as c says does.
func (r Row) Decide(c Change) Decision {
	if c.Removed && r.Removed != nil {
		return *r.Removed
	}
	if r.When != nil {
		if d, ok := r.When(c); ok {
			return d
		}
	}
	return Decision{Effect: r.Effect, Reason: r.Reason, Refusal: r.Refusal}
}

// Build completes a kind's table: the type of its component, its rows in the order of their paths.
func Build(k *Table) *Table {
	// A copy: the cloud's types are shared by its tables, which may be built at once.
	types := map[Role]string{Component: plugin.ComponentType(k.Name)}
	for role, token := range k.Types {
		types[role] = token
	}
	k.Types = types
	sort.Slice(k.Rows, func(i, j int) bool { return k.Rows[i].Path < k.Rows[j].Path })
	return k
}

// RolloutReason is what a change that rotation could carry out adds to its reason when the
// manifest does not allow rotation: the way out.
func RolloutReason(rollout string) string {
	return "; to rotate the pool instead (a pool with the new settings next to the old one, the old one drained and " +
		"deleted) set " + rollout + ".strategy: ROTATE"
}

// RolloutRow is the row of a pool's rollout block at path.
func RolloutRow(path string) Row {
	return Row{Path: path, Resource: Component, Effect: Ignored,
		Reason: "steers how clusterplane carries out later changes that would replace the pool; nothing is sent to the cloud"}
}

// Sentence says what changing the field at path of the kind's manifest does, for people
// (explain): the effect, the resource and the reason; "" when the table has no row for it.
func (k *Table) Sentence(path string) string {
	row, ok := k.Lookup(path)
	if !ok {
		return ""
	}
	resource := k.Types[row.Resource]
	if row.Resource == Stack {
		resource = "every resource of the stack"
	}
	s := string(row.Effect) + " (" + resource + "): " + row.Reason + "."
	if row.Removed != nil && row.Removed.Effect != row.Effect {
		s += " Removing it: " + string(row.Removed.Effect) + ": " + row.Removed.Reason + "."
	}
	if row.When != nil {
		s += " The effect depends on the change (see the field's description); `diff OLD NEW` says it for yours."
	}
	return s
}

// terraformNames are the Pulumi property names that are not the camelCase of their Terraform
// attribute: the bridge pluralises repeated blocks.
var terraformNames = map[string]string{
	"clusterAutoscalerConfigurations": "cluster_autoscaler_configuration",
	"taints":                          "taint",
	"ingressRules":                    "ingress_rule",
	"egressRules":                     "egress_rule",
	"cidrs":                           "cidr",
	"kubeConfigs":                     "kube_config",
}

// TerraformName is the Terraform attribute a Pulumi property of the pinned providers stands for,
// e.g. "nodeCount" is "node_count" and "taints" is "taint".
func TerraformName(property string) string {
	if name, ok := terraformNames[property]; ok {
		return name
	}
	var b strings.Builder
	for _, r := range property {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Fields returns the manifest paths whose rows send the provider property at path (dots between
// Pulumi property names, e.g. "nodePool.nodeCount") of the registered resource of type token:
// what a change the engine reports there is a change of. A path below any row's attribute
// (a label of nodePool.labels) is that row's. None when the kind sends nothing there.
func (k *Table) Fields(token, path string) []string {
	_, fields := k.sent(token, path)
	return fields
}

// Property is the property of path that a row sends: path itself, or the property above it
// that a row's attribute names ("labels" for "labels.sneaky", a key of the label map, as the
// engine names a change of one key). path when no row sends it. A value read there is the
// whole field's, as the manifest writes it.
func (k *Table) Property(token, path string) string {
	property, fields := k.sent(token, path)
	if len(fields) == 0 {
		return path
	}
	return property
}

// sent is the property of path that rows send (path, or one above it) and those rows' paths.
func (k *Table) sent(token, path string) (property string, fields []string) {
	resource := k.terraformResource(token)
	if resource == "" {
		return path, nil
	}
	names := strings.Split(path, ".")
	parts := make([]string, len(names))
	for i := range names {
		parts[i] = TerraformName(names[i])
	}
	for n := len(parts); n > 0; n-- {
		attribute := resource + "." + strings.Join(parts[:n], ".")
		var out []string
		for _, row := range k.Rows {
			if row.Attribute == attribute {
				out = append(out, row.Path)
			}
		}
		if len(out) > 0 {
			return strings.Join(names[:n], "."), out
		}
	}
	return path, nil
}

// terraformResource is the resource the attributes of the kind's resource of type token belong
// to, as its rows name them ("digitalocean_kubernetes_cluster"); "" when no row sends one.
func (k *Table) terraformResource(token string) string {
	for _, row := range k.Rows {
		if row.Attribute != "" && k.Types[row.Resource] == token {
			resource, _, _ := strings.Cut(row.Attribute, ".")
			return resource
		}
	}
	return ""
}

// TerraformResources maps the type of every cloud resource a kind registers to the resource its
// attributes belong to: a Terraform resource of the pinned providers, or the clusterplane
// plugin's own ("clusterplane_civo_node_pool").
func TerraformResources(tables []*Table) map[string]string {
	out := map[string]string{}
	for _, k := range tables {
		for _, token := range k.Types {
			if resource := k.terraformResource(token); resource != "" {
				out[token] = resource
			}
		}
	}
	return out
}
