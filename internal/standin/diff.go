package standin

import (
	"strings"

	"github.com/clusterplane/clusterplane/pkg/effects"
	"github.com/clusterplane/clusterplane/pkg/kubeversion"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// facts are the pinned providers' Terraform facts of every attribute our modules send, by
// "<terraform resource>.<attribute>", gathered from every kind of pkg/effects. An attribute is
// named by one resource only, so the kinds never disagree.
var facts = func() map[string]effects.Attribute {
	out := map[string]effects.Attribute{}
	for _, k := range effects.Kinds() {
		for name, a := range k.Attributes {
			out[name] = a
		}
	}
	return out
}()

// change is one changed property, at a top-level key or one level into an object.
type change struct {
	path    string
	kind    pulumirpc.PropertyDiff_Kind
	replace bool
}

// top is the top-level key of the change, as Diff's diffs and replaces name them.
func (c change) top() string { return strings.SplitN(c.path, ".", 2)[0] }

// diff compares news (the inputs to deploy) with olds (the state: the outputs of the last
// deployment or refresh) property by property, at the top level and one level into objects
// (nodePool.size, pools.size), as Terraform's plan does for the attributes our modules send:
//
//   - a ForceNew attribute that changes replaces the resource;
//   - so does a lower digitalocean_kubernetes_cluster version (the provider's ForceNewIfChange);
//   - an Optional+Computed attribute no longer sent is no change: Terraform keeps the value it has;
//   - any other attribute that was sent (in oldInputs) and is no longer is removed.
//
// Outputs the module never sent (endpoint, nodePool.nodes) are compared with nothing.
func diff(tfResource string, olds, oldInputs, news map[string]any) []change {
	var out []change
	for _, key := range keys(news, oldInputs) {
		attr := tfResource + "." + effects.TerraformName(key)
		nv, _ := news[key]
		ov, oldSent := olds[key]
		if !oldSent {
			ov = oldInputs[key]
		}
		newObj, newIsObj := nv.(map[string]any)
		oldObj, oldIsObj := ov.(map[string]any)
		if newIsObj && oldIsObj {
			oldInner, _ := oldInputs[key].(map[string]any)
			for _, inner := range keys(newObj, oldInner) {
				innerAttr := attr + "." + effects.TerraformName(inner)
				if c, ok := compare(key+"."+inner, factOf(innerAttr, attr), oldObj[inner], newObj[inner]); ok {
					c.replace = c.replace || facts[attr].ForceNew
					out = append(out, c)
				}
			}
			continue
		}
		if c, ok := compare(key, facts[attr], ov, nv); ok {
			if tfResource == doCluster && key == "version" && lowered(ov, nv) {
				// DigitalOcean cannot downgrade: the provider's CustomizeDiff forces a new cluster.
				c.replace = true
			}
			out = append(out, c)
		}
	}
	return out
}

// compare tells whether an attribute with facts a changed from ov to nv (nil: absent), and how.
func compare(path string, a effects.Attribute, ov, nv any) (change, bool) {
	c := change{path: path, kind: pulumirpc.PropertyDiff_UPDATE, replace: a.ForceNew}
	switch {
	case nv == nil && ov == nil:
		return change{}, false
	case nv == nil:
		if a.Optional && a.Computed {
			return change{}, false
		}
		c.kind = pulumirpc.PropertyDiff_DELETE
	case ov == nil:
		c.kind = pulumirpc.PropertyDiff_ADD
	case equal(ov, nv):
		return change{}, false
	}
	return c, true
}

// factOf is the facts of an attribute inside a block, or the block's own when the pinned
// provider has none for it (a map entry such as labels.team).
func factOf(attr, parent string) effects.Attribute {
	if a, ok := facts[attr]; ok {
		return a
	}
	return facts[parent]
}

// lowered tells whether the version nv is older than ov.
func lowered(ov, nv any) bool {
	o, ok1 := ov.(string)
	n, ok2 := nv.(string)
	if !ok1 || !ok2 {
		return false
	}
	less, ok := kubeversion.Less(n, o)
	return ok && less
}

// diffResponse is the engine's form of the changes: top-level keys in diffs and replaces, each
// changed path in the detailed diff. Replacements create the new resource before deleting the
// old one, as the bridged providers do unless a resource says otherwise.
func diffResponse(changes []change) *pulumirpc.DiffResponse {
	resp := &pulumirpc.DiffResponse{
		Changes:             pulumirpc.DiffResponse_DIFF_NONE,
		DetailedDiff:        map[string]*pulumirpc.PropertyDiff{},
		HasDetailedDiff:     true,
		DeleteBeforeReplace: false,
	}
	diffs, replaces := map[string]bool{}, map[string]bool{}
	for _, c := range changes {
		resp.Changes = pulumirpc.DiffResponse_DIFF_SOME
		kind := c.kind
		if c.replace {
			kind++ // each _REPLACE kind follows its plain kind in the enum
			if !replaces[c.top()] {
				replaces[c.top()] = true
				resp.Replaces = append(resp.Replaces, c.top())
			}
		}
		if !diffs[c.top()] {
			diffs[c.top()] = true
			resp.Diffs = append(resp.Diffs, c.top())
		}
		resp.DetailedDiff[c.path] = &pulumirpc.PropertyDiff{Kind: kind}
	}
	return resp
}
