package fielddrift

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"

	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/rotationrun"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// NotDeployed is drift's reason for a stack that holds nothing, never deployed or destroyed: no
// drift (exit 0), for nothing deployed can differ from the cloud; status tells it apart (Ready
// NotDeployed or Destroyed).
const NotDeployed = "not deployed (never, or destroyed): nothing to compare with the cloud; up deploys it"

// DriftOf is what a preview against the cloud (res) found, as drift, status --drift and serve's
// Drifted condition say it. Drift is what the cloud changed since the last up: the cloud against
// what that up applied, as Terraform's plan -refresh-only compares. A field the manifest changed
// since (or one an adoption took over as the cloud had it, left, read lazily) is pending: the
// next up applies it, and the cloud did nothing. reason is "" when nothing drifted; else what up,
// which reads the cloud first, would do, except that a difference the provider cannot put back
// is said as such, never as something up clears. A field the manifest changed and the cloud
// changed too, away from what the last up applied, is both: drifted (the cloud against the
// recorded value) and pending.
func DriftOf(t deploytarget.Target, res stackstate.Result, left func() []string) (reason string, drifted, pending []outcome.FieldDrift) {
	changes := wouldChange(t, res)
	if changes == "" {
		return "", nil, nil
	}
	drifted, pending = split(t, res, left)
	onlyPending := len(drifted) == 0 && len(pending) > 0 && explained(t.Effects, res.Steps, pending)
	for i := range drifted {
		drifted[i] = withoutOwnTags(t, drifted[i], false)
	}
	pending = ownTagsOut(t, pending)
	if onlyPending {
		return "", nil, pending
	}
	reason = changes
	switch names, all := Unclearable(drifted); {
	case all:
		reason = "the cloud differs where no up can put it back: " + names
	case names != "":
		reason += "; no up puts back " + names
	}
	return reason, drifted, pending
}

// split sorts the fields res's steps change into what the cloud changed (drifted: the cloud
// against the recorded value where the manifest changed the field too) and what the manifest
// changed since the last up, or an adoption left for the next (pending: the recorded value
// against the manifest's).
func split(t deploytarget.Target, res stackstate.Result, left func() []string) (drifted, pending []outcome.FieldDrift) {
	changed := ChangedPaths(t, res.Previous)
	var leftFields []string
	leftRead := false
	for _, f := range driftedFields(t.Effects, res.Steps) {
		if c, ok := changeOf(f.Field, changed); ok {
			p := f
			p.Recorded = c.Old
			pending = append(pending, p)
			if !SameValue(f.Live, c.Old) && f.Stays == "" {
				d := f
				d.Recorded = c.Old
				drifted = append(drifted, d)
			}
			continue
		}
		if !leftRead && left != nil {
			leftFields, leftRead = left(), true
		}
		// Taken over as the cloud had it by an adoption, the stack's last update: the next up
		// sets it for the first time. AdoptionLeft is nil when that update was no adoption: a
		// property the provider never reads back that differs then was changed in the stack's
		// state by hand (an edited state imported), which is drift.
		adopted := leftFields != nil
		if slices.Contains(leftFields, f.Field) || adopted && t.Effects != nil && t.Effects.NeverReadBack[f.Property] {
			pending = append(pending, f)
			continue
		}
		drifted = append(drifted, f)
	}
	return drifted, pending
}

// changeOf is the manifest's change behind field, among changed: the change of the field itself,
// or of one it holds or is held by.
func changeOf(field string, changed map[string]diff.Change) (diff.Change, bool) {
	if c, ok := changed[field]; ok {
		return c, true
	}
	for p, c := range changed {
		if strings.HasPrefix(p, field+".") || strings.HasPrefix(field, p+".") {
			return c, true
		}
	}
	return diff.Change{}, false
}

// explained tells whether every step that changes something changes a pending field: then the
// engine's plan is the manifest's, and the cloud changed nothing. A step without such a field (a
// resource the cloud deleted, to be created again) is the cloud's change.
func explained(table *effects.Table, steps []stackstate.Step, pending []outcome.FieldDrift) bool {
	for _, step := range steps {
		if step.IsAction(apitype.OpSame, apitype.OpRefresh, apitype.OpRead) {
			continue
		}
		found := false
		for _, f := range driftedFields(table, []stackstate.Step{step}) {
			found = found || slices.ContainsFunc(pending, func(p outcome.FieldDrift) bool { return p.Field == f.Field })
		}
		if !found {
			return false
		}
	}
	return true
}

// SameValue tells whether two values read from JSON or from the provider are the same value: 2
// and 2.0 are, as JSON says them alike.
func SameValue(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb) || reflect.DeepEqual(a, b)
}

// DescribeDrift says one drifted field with both values: the cloud's against what the last up
// applied where the manifest changed the field since, else against the manifest's.
func DescribeDrift(f outcome.FieldDrift) string {
	if f.Recorded != nil {
		return fmt.Sprintf("%s: the cloud has %s, the last up applied %s", f.Field, diff.Show(f.Live), diff.Show(f.Recorded))
	}
	return fmt.Sprintf("%s: the cloud has %s, the manifest %s", f.Field, diff.Show(f.Live), diff.Show(f.Manifest))
}

// DescribePending says the pending fields, "pending: spec.nodeCount 2 → 3, not applied": the
// recorded value (or, for what an adoption took over, the cloud's) against the manifest's.
func DescribePending(fields []outcome.FieldDrift) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.Field + " " + diff.Show(Before(f)) + " → " + diff.Show(f.Manifest) + AlreadyInCloud(f)
	}
	return "pending: " + strings.Join(parts, ", ") + ", not applied"
}

// AlreadyInCloud is what a pending field adds to its values when the cloud has the manifest's new
// value already, which the next up records without sending it: " (the cloud has it already)";
// "" for any other.
func AlreadyInCloud(f outcome.FieldDrift) string {
	if f.Recorded != nil && f.Live != nil && SameValue(f.Live, f.Manifest) {
		return " (the cloud has it already)"
	}
	return ""
}

// PendingReason says the pending fields of a preview against the cloud (res), and the rotation
// up carries out for them where the engine alone would replace a pool.
func PendingReason(t deploytarget.Target, res stackstate.Result, pending []outcome.FieldDrift) string {
	reason := DescribePending(pending)
	if carried := rotationrun.RotatedInstead(t, res); len(carried) > 0 {
		reason += " (up would rotate " + rotationrun.DescribeRotations(carried) + ", where the engine alone would replace it)"
	}
	return reason
}

// Before is the value a pending field has until the next up: what the last up applied, or, for
// what an adoption took over, what the cloud has.
func Before(f outcome.FieldDrift) any {
	if f.Recorded != nil {
		return f.Recorded
	}
	return f.Live
}

// PutBack adds to an up's outcome (or a preview's, which reads the cloud as up does) what its read
// of the cloud found changed since the stack's last up, apart from the manifest's own changes: the
// fields up sets back to the manifest's values (PutBack, with what the cloud had, so the cost says
// the real change), and those no up can put back (Drift). With any of the latter the outcome is
// Drifted, never Done: the cloud still differs from the manifest, and it says where and why.
//
// What the stack took over as the cloud had it is no change in the cloud: the fields an adoption
// left for the next up (left, read lazily from the stack's last update: adoptionLeft) and those
// whose property the provider never reads from the cloud, which only an import leaves unlike the
// manifest. Those are listed apart (Sets), as what this up sets for the first time.
//
// preview says whether o is a preview's, which says what an up would do: the caller knows which
// it is, so the wording follows from it and is never read back from a phrase.
func PutBack(t deploytarget.Target, o outcome.Outcome, preview bool, left func() []string) outcome.Outcome {
	if o.Status != outcome.Done || o.Result == nil {
		return o
	}
	changed := ChangedPaths(t, o.Result.Previous)
	var leftFields []string
	var leftRead bool
	var marked []outcome.FieldDrift
	for _, f := range driftedFields(t.Effects, o.Result.Steps) {
		if !leftRead && left != nil && !Among(f.Field, changed) && f.Stays == "" {
			leftFields, leftRead = left(), true
		}
		switch {
		case Among(f.Field, changed):
			// The manifest changed it: the report lists it as the change it is.
		case f.Stays != "":
			o.Drift = append(o.Drift, f)
		case addsOnlyMark(f):
			// A stack deployed before clusterplane marked what it creates: no change in the cloud.
			marked = append(marked, f)
		case slices.Contains(leftFields, f.Field) || t.Effects != nil && t.Effects.NeverReadBack[f.Property]:
			o.Sets = append(o.Sets, f)
		default:
			o.PutBack = append(o.PutBack, f)
		}
	}
	putBack := "put back"
	if preview {
		putBack = "would put back"
	}
	if len(o.PutBack) > 0 {
		o.Reason += "; " + putBack + " what changed in the cloud: " + fieldNames(o.PutBack)
	}
	if len(marked) > 0 {
		adds := "added"
		if preview {
			adds = "would add"
		}
		o.Reason += "; " + adds + " the stack's mark (clusterplane-stack:...) to " + fieldNames(marked)
	}
	switch {
	case len(o.Sets) > 0 && preview:
		// Said as drift says it: what the stack took over is pending for this up, not drift.
		o.Reason += "; " + DescribePending(o.Sets) + " (taken over as the cloud had it)"
	case len(o.Sets) > 0:
		o.Reason += "; set what the stack took over as the cloud had it: " + fieldNames(o.Sets)
	}
	if names, _ := Unclearable(o.Drift); names != "" {
		o.Status = outcome.Drifted
		o.Reason += "; the cloud still differs where no up can put it back: " + names
	}
	return o
}

// Previewed is the outcome of a preview's result res, as up's question shows it: with what the
// preview's read of the cloud found changed there, which up would put back or could not.
func Previewed(t deploytarget.Target, res stackstate.Result) outcome.Outcome {
	return PutBack(t, outcome.Outcome{Target: t, Status: outcome.Done, Result: &res, Reason: res.Summary()}, true,
		func() []string { return res.LeftByAdoption })
}

// wouldChange says what up would do after a preview against the cloud (res), "" when
// nothing: the engine's counts, except that a replacement of the pool that up rotates instead
// (the manifest asks for a rotation it carries out) is said as that rotation.
func wouldChange(t deploytarget.Target, res stackstate.Result) string {
	changes := res.Changed()
	if changes == "" {
		return ""
	}
	if carried := rotationrun.RotatedInstead(t, res); len(carried) > 0 {
		return "up would rotate " + rotationrun.DescribeRotations(carried) + ", where the engine alone would " + changes
	}
	return "up would " + changes
}

// stays is why up cannot put back a drift from live to an empty manifest value, from the rows'
// removal decision; "" when up can.
func stays(rows []effects.Row, live, manifest any) string {
	if !Empty(manifest) || Empty(live) {
		return ""
	}
	for _, row := range rows {
		if r := row.Removed; r != nil && r.Effect == effects.Refused && (r.Refusal == effects.NotApplied || r.Refusal == effects.Kept) {
			return "up cannot put this back: the manifest leaves " + row.Path + " empty, and " + r.Reason
		}
	}
	return ""
}

// Empty tells an unset value, or an empty list, map or string.
func Empty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(v) == 0
	case []any:
		return len(v) == 0
	case string:
		return v == ""
	}
	return false
}

// Unclearable says the drifted fields no up puts back, "" when there is none: drift's reason must
// not say that up would clear them.
func Unclearable(fields []outcome.FieldDrift) (names string, all bool) {
	var out []string
	for _, f := range fields {
		if f.Stays != "" {
			out = append(out, f.Field)
		}
	}
	return strings.Join(out, ", "), len(out) > 0 && len(out) == len(fields)
}

// fieldNames lists the fields, "spec.nodeCount, spec.tags".
func fieldNames(fields []outcome.FieldDrift) string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Field
	}
	return strings.Join(names, ", ")
}

// driftedFields names the manifest fields behind the properties the steps change (pkg/change/effects
// knows which field is sent as which property), each once, in the order of the steps.
func driftedFields(table *effects.Table, steps []stackstate.Step) []outcome.FieldDrift {
	seen := map[string]bool{}
	var out []outcome.FieldDrift
	for _, step := range steps {
		if step.IsAction(apitype.OpSame, apitype.OpRefresh, apitype.OpRead) {
			continue
		}
		for _, path := range PropertyPaths(step.Paths) {
			if table != nil {
				// A key of a map the manifest writes whole (labels.sneaky) is read as the map:
				// the manifest has no value at the key, and the key would be lost from the report.
				path = table.Property(step.Type, path)
			}
			if table != nil && table.NeverReadBack[path] && ValueAt(step.Live, path) == nil {
				// The provider never read it from the cloud: there is nothing to disagree with.
				continue
			}
			field := fieldsOf(table, step.Type, path)
			live, manifest := cloudValue(table, step, path), ValueAt(step.New, path)
			// The engine names a property it would send again whole (a list the provider
			// reorders): both values alike, it is no drift a reviewer can act on.
			// An empty map or list in the cloud is the manifest's unset field, not a drift.
			if seen[field] || reflect.DeepEqual(live, manifest) || Empty(live) && Empty(manifest) {
				continue
			}
			seen[field] = true
			rows := rowsOf(table, step.Type, path)
			out = append(out, outcome.FieldDrift{Field: field, Live: inManifestTerms(rows, live), Manifest: inManifestTerms(rows, manifest),
				Stays: stays(rows, live, manifest), Property: path})
		}
	}
	return out
}

// cloudValue is what the cloud has at a property path of a step's resource: the outputs the
// refresh read back, not the inputs Pulumi derives from them, which a bridged provider fills
// from the last inputs it sent (a set of tags edited in the console comes back short of the
// cloud's); under the name the provider files the value under where it has one (a DigitalOcean
// pool's count is actualNodeCount: nodeCount holds what was last sent, or nothing after an
// import); the inputs only where the outputs lack the property.
func cloudValue(table *effects.Table, step stackstate.Step, path string) any {
	if table != nil {
		if alias, ok := table.ReadBack[path]; ok {
			if v := ValueAt(step.Live, alias); v != nil {
				return v
			}
		}
	}
	if v := ValueAt(step.Live, path); v != nil {
		return v
	}
	return ValueAt(step.Old, path)
}

// fieldsOf names the manifest fields sent as the property at path of a resource of type typ, "a
// or b" when several are; the type and the property when none is. A spec field names it alone:
// the metadata fields that also feed a property (the derived tags) only add to it.
func fieldsOf(table *effects.Table, typ, path string) string {
	var names []string
	if table != nil {
		names = SpecFirst(table.Fields(typ, path))
	}
	if len(names) == 0 {
		return typ + " " + path
	}
	return strings.Join(names, " or ")
}

// PropertyPaths are the properties behind a step's changed paths, each once: an element of a
// list or map ("tags[0]", `labels["a"]`) stands for the whole property, which is what a manifest
// field sets and what both values are read of.
func PropertyPaths(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		if i := strings.IndexByte(p, '['); i >= 0 {
			p = p[:i]
		}
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// ValueAt reads a dotted property path of a resource's inputs; nil when it is not there.
func ValueAt(inputs map[string]any, path string) any {
	var v any = inputs
	for _, part := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[part]
	}
	return v
}

// SpecFirst keeps the spec fields of fields when there are any: the metadata fields that also feed
// a property (the tags derived from metadata.env, id, labels and org) only add to it, and listing
// them reads as changes nobody made.
func SpecFirst(fields []string) []string {
	var spec []string
	for _, f := range fields {
		if strings.HasPrefix(f, "spec.") {
			spec = append(spec, f)
		}
	}
	if len(spec) > 0 {
		return spec
	}
	return fields
}
