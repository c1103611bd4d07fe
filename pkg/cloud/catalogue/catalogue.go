// Package catalogue checks a manifest against what its cloud offers: offline against the
// repository's tables its facts hold (pkg/cloudfacts/<cloud>: warnings, and the region a refused
// value was meant to be, ParseInput), and online against what the cloud's API lists now, as its
// driver read it (Refusals, given the catalogue). These are checks of a manifest that the deploy
// pipeline and the kinds' programs both take; they read what a cloud is, never a driver, so that
// a kind's program links no other cloud's client.
package catalogue

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
	"github.com/clusterplane/clusterplane/pkg/kubeversion"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// catalogueField is a field of a manifest whose value a cloud's catalogue lists: the region, the
// Kubernetes version or a node pool's size.
type catalogueField struct {
	// path is the field's path of proto names from the manifest ("spec.kubernetes_version"), as
	// stackinput.Where takes it.
	path  string
	value string
}

// manifestCatalogue is what a manifest asks of its cloud's catalogue.
type manifestCatalogue struct {
	// cloud is the manifest's cloud, "" when it is of none; facts what it is.
	cloud string
	facts cloudfacts.Cloud
	// distribution is the Kubernetes distribution of a cluster, as its cloud's facts read it from
	// its cluster type (Civo's k3s or talos); "" elsewhere.
	distribution string
	region       *catalogueField
	version      *catalogueField
	sizes        []catalogueField
}

// catalogueOf reads the catalogue fields of input (a stack input) through their names, so that no
// kind's API is named here: spec.region, spec.kubernetes_version, and the size of every message
// that also has a node count (the node pools, default or not).
func catalogueOf(input proto.Message) manifestCatalogue {
	var mc manifestCatalogue
	spec := protofield.At(apikinds.Target(input).ProtoReflect(), kindfield.TargetSpec)
	c, ok := cloudlist.OfInput(input)
	if !ok || spec == nil {
		return mc
	}
	mc.cloud, mc.facts = string(c.ID()), c
	if v := protofield.String(spec, kindfield.SpecRegion); v != "" {
		mc.region = &catalogueField{path: "spec.region", value: v}
	}
	if v := protofield.String(spec, kindfield.SpecKubernetesVersion); v != "" {
		mc.version = &catalogueField{path: "spec.kubernetes_version", value: v}
	}
	if spec.Descriptor().Fields().ByJSONName(kindfield.SpecKubernetesVersion) != nil {
		clusterType := ""
		if fd := spec.Descriptor().Fields().ByJSONName(kindfield.SpecClusterType); fd != nil && fd.Enum() != nil {
			if v := fd.Enum().Values().ByNumber(spec.Get(fd).Enum()); v != nil {
				clusterType = string(v.Name())
			}
		}
		mc.distribution = c.Distribution(clusterType)
	}
	sizes(spec, "spec", func(path, size string) {
		mc.sizes = append(mc.sizes, catalogueField{path: path, value: size})
	})
	return mc
}

// sizes calls f with the path and size of every message under m (m included) that has a size
// and a node count.
func sizes(m protoreflect.Message, path string, f func(path, size string)) {
	fields := m.Descriptor().Fields()
	if fields.ByJSONName(kindfield.SpecSize) != nil && fields.ByJSONName(kindfield.SpecNodeCount) != nil {
		if size := protofield.String(m, kindfield.SpecSize); size != "" {
			f(path+".size", size)
		}
	}
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Message() == nil || fd.IsMap() || !m.Has(fd) {
			continue
		}
		at := path + "." + string(fd.Name())
		if fd.IsList() {
			list := m.Get(fd).List()
			for j := 0; j < list.Len(); j++ {
				sizes(list.Get(j).Message(), fmt.Sprintf("%s[%d]", at, j), f)
			}
			continue
		}
		sizes(m.Get(fd).Message(), at, f)
	}
}

// versionOffered tells whether offered holds v: the same version (Civo's leading v aside), or
// for a minor line ("1.31") any version of that minor.
func versionOffered(v string, offered []string) bool {
	for _, o := range offered {
		if strings.TrimPrefix(o, "v") == strings.TrimPrefix(v, "v") ||
			kubeversion.IsMinorLine(v) && kubeversion.SameMinor(v, o) && !strings.HasPrefix(o, "talos") {
			return true
		}
	}
	return false
}

// closest is what v was probably meant to be: the one of candidates (versions, sizes) spelled nearest
// to it, when one is at most edits away; "" otherwise. Of two as close, the newer.
func closest(v string, candidates []string, edits int) string {
	best, bestDistance := "", edits+1
	for _, c := range candidates {
		d := apikinds.Distance(strings.TrimPrefix(v, "v"), strings.TrimPrefix(c, "v"))
		if d < bestDistance || d == bestDistance && best != "" && newer(c, best) {
			best, bestDistance = c, d
		}
	}
	return best
}

func newer(a, b string) bool {
	less, ok := kubeversion.Less(b, a)
	return ok && less
}

func isTalos(v string) bool { return strings.HasPrefix(v, "talos") }

// minors are the minor lines of versions ("1.31"), each once, oldest first; talos' own versions
// are left out, as no manifest writes them as a line.
func minors(versions []string) []string {
	var out []string
	for _, v := range versions {
		if m := kubeversion.Minor(v); m != "" && !isTalos(v) && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		if a == b {
			return 0
		}
		if less, _ := kubeversion.Less(a, b); less {
			return -1
		}
		return 1
	})
	return out
}

// versionWords say what is missing ("version \"1.31.1-do.6\"", "minor line \"1.35\"") and
// what is offered instead: the version of the same minor spelled closest, when one is close (a
// typo), else the same minor's versions, else the minors on offer (a minor newer than the list,
// or a typo in the minor).
func versionWords(v string, offered []string) (what, instead string) {
	if kubeversion.IsMinorLine(v) {
		return fmt.Sprintf("minor line %q", v), "the minors it lists are " + strings.Join(minors(offered), ", ")
	}
	what = fmt.Sprintf("version %q", v)
	var same []string
	for _, o := range offered {
		if isTalos(o) == isTalos(v) && kubeversion.SameMinor(o, v) {
			same = append(same, o)
		}
	}
	switch {
	case len(same) == 0 && isTalos(v):
		var talos []string
		for _, o := range offered {
			if isTalos(o) {
				talos = append(talos, o)
			}
		}
		return what, "its talos versions are " + strings.Join(talos, ", ")
	case len(same) == 0:
		return what, "it lists no " + kubeversion.Minor(v) + " version; its minors are " + strings.Join(minors(offered), ", ")
	}
	if near := closest(v, same, 2); near != "" {
		return what, "did you mean " + near + "?"
	}
	return what, "its " + kubeversion.Minor(v) + " versions are " + strings.Join(same, ", ")
}

// at is where a catalogue field stands in data, as a warning or refusal starts: "FILE:LINE:COL:
// path" when the text writes it, "FILE: path" otherwise.
func at(file string, data []byte, input proto.Message, f catalogueField) (stackinput.Problem, bool) {
	line, column, written, ok := stackinput.Where(data, input, f.path)
	if !ok {
		return stackinput.Problem{File: file, Path: validation.Camel(f.path)}, false
	}
	return stackinput.Problem{File: file, Line: line, Column: column, Path: written}, true
}

// versionWarnings warns of a Kubernetes version (or minor line) of input that the versions table
// (pkg/change/cost) does not list: a typo (1.31.1-do.6), or a version newer than the table. Only a
// warning: the table may be older than the cloud, and the cloud itself refuses what it does not
// offer (online, preview and up ask it first).
func versionWarnings(file string, data []byte, input proto.Message) []Warning {
	mc := catalogueOf(input)
	if mc.version == nil {
		return nil
	}
	pinned := mc.facts.Versions(mc.distribution)
	if len(pinned) == 0 || versionOffered(mc.version.value, pinned) {
		return nil
	}
	p, _ := at(file, data, input, *mc.version)
	what, instead := versionWords(mc.version.value, pinned)
	p.Message = fmt.Sprintf("%s is not in the %s catalogue (%s, %s): %s The cloud refuses a version it "+
		"does not offer", what, mc.cloud, cost.VersionsSource, cost.VersionsDate, sentence(instead))
	p.RuleID = "catalogue.version"
	return []Warning{warning(p)}
}

// regionWarnings warns of a region of input that the regions table (pkg/change/cost) does not
// list: a typo (fra2), or a region the cloud opened after the table was written. Only a warning,
// for the same reason as a version's: online, preview and up ask the cloud's own list, which
// decides.
func regionWarnings(file string, data []byte, input proto.Message) []Warning {
	mc := catalogueOf(input)
	if mc.region == nil {
		return nil
	}
	pinned := cost.RegionNames(mc.facts.Regions())
	if len(pinned) == 0 || slices.Contains(pinned, mc.region.value) {
		return nil
	}
	p, _ := at(file, data, input, *mc.region)
	p.Message = fmt.Sprintf("region %q is not in the %s catalogue (%s, %s): %s The cloud refuses a region it does not offer",
		mc.region.value, mc.cloud, cost.RegionsSource, cost.RegionsDate, sentence(regionWords(mc.region.value, pinned)))
	p.RuleID = "catalogue.region"
	return []Warning{warning(p)}
}

// regionWords say what region was probably meant: the one an edit away (a letter or a digit
// changed, added or dropped, or two neighbours swapped), else every region listed (there are few).
func regionWords(region string, offered []string) string {
	if near := closest(region, offered, 1); near != "" {
		return "did you mean " + near + "?"
	}
	return "its regions are " + listed(offered)
}

// Warning is what a valid file may get wrong without being invalid: where and why, as a problem
// says it (ruleId catalogue.region, catalogue.size, catalogue.version or policy), and Text, the line validate
// prints, so that a script reading -o json needs not parse the line.
type Warning struct {
	stackinput.Problem
	Text string `json:"text"`
}

func (w Warning) String() string { return w.Text }

// warning is the warning of p, its text written by warningLine.
func warning(p stackinput.Problem) Warning { return Warning{Problem: p, Text: warningLine(p)} }

// warningLine writes p as "FILE:LINE:COL: warning: path: words", the warning word first as the
// size warnings have it.
func warningLine(p stackinput.Problem) string {
	head := p.File
	if p.Line > 0 {
		head = fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
	}
	words := strings.TrimPrefix(p.Message, "warning: ")
	return fmt.Sprintf("%s: warning: %s: %s", head, p.Path, words)
}

// sentence ends words with a full stop, unless they end with a question.
func sentence(words string) string {
	if strings.HasSuffix(words, "?") {
		return words
	}
	return words + "."
}

// Warnings are input's region, sizes and version that the pinned catalogue does not list, each
// at its line in data.
func Warnings(file string, data []byte, input proto.Message) []Warning {
	out := append(regionWarnings(file, data, input), catalogueWarnings(file, data, input)...)
	return append(out, versionWarnings(file, data, input)...)
}

// WarningsOf are the warnings validate gives input, without a file: what the component
// provider tells a TypeScript, Python or YAML program's author.
func WarningsOf(input proto.Message) []Warning { return Warnings("", nil, input) }

// catalogueWarnings warns of each size of input that the cloud's catalogue does not list: a typo
// (s-2vcpu-4gbb) or a size newer than the table, at the field's line in data. Only a warning: the
// catalogue offline may be older than the cloud, and the cloud itself refuses what it does not
// offer.
func catalogueWarnings(file string, data []byte, input proto.Message) []Warning {
	mc := catalogueOf(input)
	if mc.cloud == "" || len(mc.sizes) == 0 {
		return nil
	}
	// The table, never the sizes API, even with a token in the environment: the offline checks
	// ask no cloud (an unreachable one made validate wait out the API's retries, ~10 s a run).
	// preview and up ask the cloud itself (pkg/deploy's checkOffered).
	prices := mc.facts.Prices()
	known := slices.Collect(maps.Keys(prices.Sizes))
	known = append(known, prices.Unpriced...)
	slices.Sort(known)
	var out []Warning
	for _, f := range mc.sizes {
		if prices.Offers(f.value) {
			continue
		}
		p, _ := at(file, data, input, f)
		spelling := "check its spelling"
		if near := closest(f.value, known, 1); near != "" {
			spelling += " (did you mean " + near + "?)"
		}
		p.Message = fmt.Sprintf("size %q is not in the %s catalogue (%s, %s): %s; the cloud refuses a size it does not offer",
			f.value, mc.cloud, prices.Source, prices.Date, spelling)
		p.RuleID = "catalogue.size"
		out = append(out, warning(p))
	}
	return out
}
