package effects

import (
	stdmaps "maps"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
)

// Reasons shared by several kinds.
const (
	renameReason = "a renamed manifest names a stack of its own (<name>-<env>); deployed onto the old stack on purpose " +
		"(--stack and --retarget, refused without), the rename deletes everything the stack created and creates it anew, " +
		"because every Pulumi resource of the stack is named after metadata.name: clusters, pools and the workloads on them are lost"
	envReason = "organisation policy reads metadata.env, so a stack's environment never changes: on the old stack (--stack) " +
		"the change is refused whatever the flags, and without --stack the manifest names a stack of its own (<name>-<env>)"
	annotationsReason = "annotations are for tools; the modules send nothing of them to the cloud"
	providerReason    = "changes the credentials or endpoint the provider uses; the cloud resources are not touched"
	protectionReason  = "changes only Pulumi's protect flag on the cluster, recorded in the stack's state; nothing is sent to the cloud"
)

// MetadataRows are the rows of metadata fields: a rename replaces everything, a new environment
// is refused (it names another stack), the fields that become tags update them on tagged (a role, with the attribute they are sent as), annotations
// are not sent.
func MetadataRows(tagged Role, tagsAttribute, tagsReason string) []Row {
	tagEffect, tagReason := Update, tagsReason
	if tagged == "" {
		tagEffect = Ignored
	}
	rows := []Row{
		{Path: "metadata.name", Resource: Stack, Effect: Replace, Reason: renameReason},
		{Path: "metadata.annotations", Resource: Component, Effect: Ignored, Reason: annotationsReason},
	}
	res := tagged
	if res == "" {
		res = Component
	}
	for _, field := range []string{"id", "org", "labels"} {
		rows = append(rows, Row{Path: "metadata." + field, Resource: res, Attribute: tagsAttribute, Effect: tagEffect, Reason: tagReason})
	}
	// metadata.env becomes a tag too (drift in the tags is traced to it), but is never changed.
	rows = append(rows, Row{Path: "metadata.env", Resource: res, Attribute: tagsAttribute, Effect: Refused, Refusal: Identity, Reason: envReason})
	return rows
}

// ProviderRows are the rows of the stack input's provider config.
func ProviderRows(fields ...string) []Row {
	rows := make([]Row, 0, len(fields))
	for _, field := range fields {
		rows = append(rows, Row{Path: "providerConfig." + field, Resource: Provider, Effect: Update, Reason: providerReason})
	}
	return rows
}

// ProtectionPath is the path of a cluster kind's deletionProtection.
const ProtectionPath = "spec.deletionProtection"

// ProtectionRow is the row of a cluster kind's deletionProtection.
func ProtectionRow() Row {
	return Row{Path: ProtectionPath, Resource: Cluster, Effect: Update, Reason: protectionReason}
}

// IgnoredUnder makes a row's change Ignored when the boolean at path (JSON names from the spec)
// is true in the new spec.
func IgnoredUnder(reason string, path ...string) func(Change) (Decision, bool) {
	return func(c Change) (Decision, bool) {
		// Read by names the caller passes: a kind's table passes its API's generated constants
		// (DigitalOceanKubernetesNodePoolSpecFieldAutoScale); this package imports no kind.
		if protofield.Bool(protofield.At(c.NewSpec, path[:len(path)-1]...), path[len(path)-1]) {
			return Decision{Effect: Ignored, Reason: reason}, true
		}
		return Decision{}, false
	}
}

// Facts builds a resource's Attributes from the Terraform schema's flags, written as words
// ("optional computed forcenew") so the table reads like the provider's schema.
func Facts(resource, source string, flags map[string]string) map[string]Attribute {
	out := make(map[string]Attribute, len(flags))
	for name, words := range flags {
		a := Attribute{Source: source}
		for _, w := range strings.Fields(words) {
			switch w {
			case "required":
				a.Required = true
			case "optional":
				a.Optional = true
			case "computed":
				a.Computed = true
			case "forcenew":
				a.ForceNew = true
			default:
				panic("effects: unknown schema flag " + w + " of " + resource + name)
			}
		}
		out[resource+name] = a
	}
	return out
}

// Merge joins the Attributes of the several resources one kind registers.
func Merge(maps ...map[string]Attribute) map[string]Attribute {
	out := map[string]Attribute{}
	for _, m := range maps {
		stdmaps.Copy(out, m)
	}
	return out
}

// Constant marks an attribute the module always sends with the same value.
func Constant(attrs map[string]Attribute, name, why string) {
	annotate(attrs, name, func(a *Attribute) { a.Constant = why })
}

// Wire records what the API client does with the attribute on the wire.
func Wire(attrs map[string]Attribute, name, what string) {
	annotate(attrs, name, func(a *Attribute) { a.Wire = what })
}

func annotate(attrs map[string]Attribute, name string, set func(*Attribute)) {
	a, ok := attrs[name]
	if !ok {
		panic("effects: no attribute " + name)
	}
	set(&a)
	attrs[name] = a
}
