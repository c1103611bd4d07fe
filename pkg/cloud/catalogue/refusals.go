package catalogue

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"google.golang.org/protobuf/proto"
)

// cloudName is the cloud id as a refusal names it, by its facts; the id itself for a cloud no
// facts know (catalogueOf finds none such: the stack input's cloud is a listed one).
func cloudName(id string) string {
	if c, err := cloudlist.Get(cloudfacts.ID(id)); err == nil {
		return c.Env().Name
	}
	return id
}

// Refusals are the problems of the fields of data (a manifest or stack input, parsed into input)
// that cat, what the cloud offers now, does not list: the region, when cat lists regions; the
// Kubernetes version (a minor line by its minor; for Civo among its distribution's versions,
// deprecated ones not offered) and, when cat lists sizes, each node pool's size. Each names the field where the file writes it and what the
// cloud offers instead. A value old (the manifest the stack last deployed; nil when none) has at
// the same field is never refused: the cloud keeps running what it runs, even a version it no
// longer gives new clusters.
func Refusals(file string, data []byte, input, old proto.Message, cat cost.Catalogue) []stackinput.Problem {
	mc := catalogueOf(input)
	if mc.cloud == "" {
		return nil
	}
	var before manifestCatalogue
	if old != nil {
		before = catalogueOf(old)
	}
	name := cloudName(mc.cloud)
	var out []stackinput.Problem
	if r := mc.region; r != nil && cat.Regions != nil && !slices.Contains(cat.Regions, r.value) &&
		!(before.region != nil && before.region.value == r.value) {
		p, _ := at(file, data, input, *r)
		p.RuleID = "catalogue.region"
		p.Message = fmt.Sprintf("region %q is not offered by %s now", r.value, name)
		if near := closest(r.value, cat.Regions, 1); near != "" {
			p.Message += ": did you mean " + near + "?"
		}
		p.Hint = fmt.Sprintf("its API lists %s; a cluster cannot be created in a region it does not offer", listed(cat.Regions))
		out = append(out, p)
	}
	if v := mc.version; v != nil && !(before.version != nil && before.version.value == v.value) {
		var versions []string
		for _, o := range cat.Versions {
			if !o.Deprecated && (mc.distribution == "" || o.Distribution == "" || o.Distribution == mc.distribution) {
				versions = append(versions, o.Version)
			}
		}
		if !versionOffered(v.value, versions) {
			p, _ := at(file, data, input, *v)
			what, instead := versionWords(v.value, versions)
			if len(versions) == 0 {
				instead = "it lists none"
			}
			p.RuleID, p.Message = "catalogue.version", fmt.Sprintf("%s is not offered by %s now: %s", what, name, sentence(instead))
			p.Hint = fmt.Sprintf("its API lists %s; a version it does not offer cannot be deployed", listed(versions))
			out = append(out, p)
		}
	}
	if cat.Sizes != nil {
		for _, s := range mc.sizes {
			if slices.Contains(cat.Sizes, s.value) || slices.ContainsFunc(before.sizes, func(b catalogueField) bool { return b == s }) {
				continue
			}
			p, _ := at(file, data, input, s)
			p.RuleID, p.Message = "catalogue.size", fmt.Sprintf("size %q is not offered by %s now", s.value, name)
			if near := closest(s.value, cat.Sizes, 1); near != "" {
				p.Message += ": did you mean " + near + "?"
			}
			p.Hint = fmt.Sprintf("its API lists %s; a size it does not offer cannot be deployed", listed(cat.Sizes))
			out = append(out, p)
		}
	}
	return out
}

// listed is a list for a hint: every item up to a dozen, then how many more.
func listed(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	if len(items) > 12 {
		return strings.Join(items[:12], ", ") + fmt.Sprintf(" and %d more", len(items)-12)
	}
	return strings.Join(items, ", ")
}
