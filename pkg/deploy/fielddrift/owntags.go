package fielddrift

import (
	"slices"
	"strings"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/labels"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
)

// ownTagsOut are the pending fields with clusterplane's own tags left out of every tags value
// (withoutOwnTags, all of them), so that what the user's tags change is what is said. A field
// whose values would then agree keeps them: the next up only adds the tags clusterplane writes
// itself (an adopted cluster made without them), and that is the change pending.
func ownTagsOut(t deploytarget.Target, pending []outcome.FieldDrift) []outcome.FieldDrift {
	for i, f := range pending {
		if out := withoutOwnTags(t, f, true); !isTags(f.Field) || !SameValue(Before(out), out.Manifest) {
			pending[i] = out
		}
	}
	return pending
}

// isTags tells a tags field of a manifest (spec.tags, spec.defaultNodePool.tags).
func isTags(field string) bool { return strings.HasSuffix(field, "."+kindfield.SpecTags) }

// withoutOwnTags is f with the tags clusterplane derives from the manifest's metadata
// (labels.Standard: resource-kind, resource-name, ...) and the stack's mark left out of its values, each value a list
// as the manifest writes it (Civo's cluster holds its tags as one string): a tags field is the
// user's list, and the derived tags the provider sends with it are no value the user wrote or
// changed. Unless all is set, a derived tag only one side has (removed in the console) stays, as
// the difference it is.
func withoutOwnTags(t deploytarget.Target, f outcome.FieldDrift, all bool) outcome.FieldDrift {
	if !isTags(f.Field) || t.Input == nil {
		return f
	}
	f.Live, f.Manifest = asList(f.Live), asList(f.Manifest)
	if f.Recorded != nil {
		f.Recorded = asList(f.Recorded)
	}
	meta, _ := protofield.At(apikinds.Target(t.Input).ProtoReflect(), kindfield.TargetMetadata).Interface().(*sharedv1.CloudResourceMetadata)
	if meta == nil {
		return f
	}
	own := labels.Tags(labels.Standard(t.Name, meta), nil)
	live, manifest := tagList(f.Live), tagList(f.Manifest)
	// A stack's mark (stackmark) is clusterplane's own too, whichever stack's it is.
	for _, tag := range append(slices.Clone(live), manifest...) {
		if stackmark.IsMarkTag(tag) && !slices.Contains(own, tag) {
			own = append(own, tag)
		}
	}
	var both []string
	for _, tag := range own {
		if all && (slices.Contains(live, tag) || slices.Contains(manifest, tag)) || slices.Contains(live, tag) && slices.Contains(manifest, tag) {
			both = append(both, tag)
		}
	}
	if len(both) == 0 {
		return f
	}
	f.Live, f.Manifest = dropTags(f.Live, both), dropTags(f.Manifest, both)
	if f.Recorded != nil {
		f.Recorded = dropTags(f.Recorded, both)
	}
	return f
}

// tagList reads a tags value, a list once asList has read it, as strings.
func tagList(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// asList is a tags value held as one string of tags separated by spaces (Civo's cluster) as the
// list the manifest writes; any other value as it is.
func asList(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	out := []any{}
	for _, tag := range strings.Fields(s) {
		out = append(out, tag)
	}
	return out
}

// dropTags is v, a list once asList has read it, without the tags given; an emptied list is an
// empty list, any other value is v.
func dropTags(v any, drop []string) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	kept := make([]any, 0, len(list))
	for _, e := range list {
		if s, ok := e.(string); !ok || !slices.Contains(drop, s) {
			kept = append(kept, e)
		}
	}
	return kept
}

// addsOnlyMark tells a tags field whose manifest value is the cloud's with a stack's mark added
// (stackmark): what a stack deployed before clusterplane marked what it creates gets at its next
// up, no change made in the cloud.
func addsOnlyMark(f outcome.FieldDrift) bool {
	if !isTags(f.Field) {
		return false
	}
	live, manifest := tagList(asList(f.Live)), tagList(asList(f.Manifest))
	// Tags are a set: the cloud may list them in another order than the manifest's.
	unmarked := func(tags []string) []string {
		out := slices.DeleteFunc(slices.Clone(tags), stackmark.IsMarkTag)
		slices.Sort(out)
		return out
	}
	return slices.ContainsFunc(manifest, stackmark.IsMarkTag) && !slices.ContainsFunc(live, stackmark.IsMarkTag) &&
		slices.Equal(unmarked(live), unmarked(manifest))
}
