// Package cost estimates what a manifest costs a month: its nodes at their size's price, and a
// high-availability control plane's fee, autoscaled pools as a range from their minimum to their
// maximum. It computes from values and calls nothing: the prices come in from the cloud's driver
// (pkg/cloud/<cloud>), its API's when a token reads them, else the repository's table the
// cloud's facts hold (pkg/cloudfacts/<cloud>), whose date a report shows. The regions and
// versions tables come in the same way.
package cost

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Estimate is a manifest's monthly cost: Min to Max (equal unless a pool autoscales).
type Estimate struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
	// Unknown are the sizes the prices do not list: the estimate leaves them out.
	Unknown []string `json:"unknownSizes,omitempty"`
	Source  string   `json:"source"`
	Date    string   `json:"date"`
	// HAFeeSource says where the HA fee counted in Min and Max comes from, when not from Source;
	// "" when no fee is counted: a cluster without high availability is not priced by it.
	HAFeeSource string `json:"haFeeSource,omitempty"`
	// SizeSources say where a counted size's price comes from, for a size not priced by Source.
	SizeSources map[string]string `json:"sizeSources,omitempty"`
}

// Of estimates a stack input's (a message with target.spec) monthly cost with p.
func Of(input proto.Message, p Prices) Estimate {
	e := Estimate{Source: p.Source, Date: p.Date}
	spec := protofield.At(input.ProtoReflect(), kindfield.StackInputTarget, kindfield.TargetSpec)
	if spec == nil {
		return e
	}
	if protofield.Bool(spec, kindfield.SpecHighlyAvailable) {
		e.Min += p.HAFee
		e.Max += p.HAFee
		e.HAFeeSource = p.HAFeeSource
	}
	unknown := map[string]bool{}
	pools(spec, func(pool protoreflect.Message) {
		size := protofield.String(pool, kindfield.SpecSize)
		price, ok := p.Sizes[size]
		if !ok {
			if size != "" {
				unknown[size] = true
			}
			return
		}
		if src, ok := p.SizeSources[size]; ok {
			if e.SizeSources == nil {
				e.SizeSources = map[string]string{}
			}
			e.SizeSources[size] = src
		}
		low, high := protofield.Int(pool, kindfield.SpecNodeCount), protofield.Int(pool, kindfield.SpecNodeCount)
		if protofield.Bool(pool, kindfield.SpecAutoScale) || !has(pool, kindfield.SpecAutoScale) && protofield.Int(pool, kindfield.SpecMaxNodes) > 0 {
			low, high = protofield.Int(pool, kindfield.SpecMinNodes), protofield.Int(pool, kindfield.SpecMaxNodes)
		}
		e.Min += float64(low) * price
		e.Max += float64(high) * price
	})
	for s := range unknown {
		e.Unknown = append(e.Unknown, s)
	}
	sort.Strings(e.Unknown)
	return e
}

// Delta is what a change does to the monthly cost.
type Delta struct {
	Old Estimate `json:"old"`
	New Estimate `json:"new"`
	// Min and Max are New less Old.
	Min float64 `json:"min"`
	Max float64 `json:"max"`
	// OldNotKnown is set when what the stack held before is not known (it recorded no manifest:
	// its last up did not finish): Old, Min and Max are then not a change, only New is known.
	OldNotKnown bool `json:"oldNotKnown,omitempty"`
}

// Unrecorded is the cost of newInput on a stack that recorded no manifest to compare it with:
// the new monthly cost, and the change said as not known, never as a new charge from nothing.
func Unrecorded(newInput proto.Message, p Prices) Delta {
	d := Compare(nil, newInput, p)
	d.OldNotKnown = true
	return d
}

// Compare prices a change from oldInput to newInput with p; a nil oldInput is nothing deployed
// yet, costing nothing.
func Compare(oldInput, newInput proto.Message, p Prices) Delta {
	d := Delta{Old: Estimate{Source: p.Source, Date: p.Date}, New: Of(newInput, p)}
	if oldInput != nil {
		d.Old = Of(oldInput, p)
	}
	d.Min, d.Max = d.New.Min-d.Old.Min, d.New.Max-d.Old.Max
	// The low ends' difference can be above the high ends' (a fixed pool made autoscaling, say):
	// the change's range is still from the lower to the higher.
	if d.Min > d.Max {
		d.Min, d.Max = d.Max, d.Min
	}
	return d
}

// String says the estimate: "$72.00/month", "$48.00–$120.00/month", "not known" when it priced
// nothing, and the sizes it could not price.
func (e Estimate) String() string {
	// figure: "$0.00/month" for an estimate whose every size is unpriced would read as free.
	text := e.figure()
	if len(e.Unknown) > 0 {
		text += " (unknown size " + strings.Join(e.Unknown, ", ") + ": not priced)"
	}
	return text
}

// String says the change, "+$24.00/month ($48.00 → $72.00/month; prices: ...)" or "unchanged
// ($48.00 → $48.00/month; ...)", and, when a
// size has no known price, that the figure leaves it out: an unknown size never reads as free.
func (d Delta) String() string {
	if d.OldNotKnown {
		return fmt.Sprintf("%s; the change is not known: the stack recorded no manifest to compare with (its last up did not "+
			"finish) (%s)", d.New, d.New.Citation())
	}
	text := d.Short()
	if len(d.unknown()) > 0 {
		text += " (no known price)"
	}
	// The HA fee's source is said when either side counts the fee: turning HA off prices it too.
	cited := d.New
	cited.HAFeeSource = cmp.Or(d.New.HAFeeSource, d.Old.HAFeeSource)
	cited.SizeSources = maps.Clone(d.Old.SizeSources)
	if len(d.New.SizeSources) > 0 {
		cited.SizeSources = maps.Clone(d.New.SizeSources)
		maps.Copy(cited.SizeSources, d.Old.SizeSources)
	}
	if d.Old.notKnown() || d.New.notKnown() {
		// $0.00 for a side whose every size is unpriced would read as free.
		return fmt.Sprintf("%s (%s → %s; %s)", text, d.Old.figure(), d.New.figure(), cited.Citation())
	}
	return fmt.Sprintf("%s (%s → %s/month; %s)", text, money(d.Old.Min, d.Old.Max, false),
		money(d.New.Min, d.New.Max, false), cited.Citation())
}

// Short says the change alone, as a table's row gives it: "+$24.00/month", "unchanged", "not
// known, not counting g4s.kube.huge", without the figures it is between or their prices. A change
// not known (the stack recorded no manifest) is said whole: it is the new figure only.
func (d Delta) Short() string {
	if d.OldNotKnown {
		return d.String()
	}
	text := money(min(d.Min, d.Max), max(d.Min, d.Max), true) + "/month"
	if d.Unchanged() {
		// "+$0.00" reads as a charge: a change that costs nothing says so.
		text = "unchanged"
	}
	if unknown := d.unknown(); len(unknown) > 0 {
		if d.Min == 0 && d.Max == 0 {
			// Nothing counted changed: "+$0.00" would read as free, and the change is unknown.
			text = "not known"
		}
		text += ", not counting " + strings.Join(unknown, ", ")
	}
	return text
}

// Unchanged tells a change known to cost nothing: both sides known, every size priced, the same
// figure.
func (d Delta) Unchanged() bool {
	return !d.OldNotKnown && d.Min == 0 && d.Max == 0 && len(d.unknown()) == 0
}

// unknown are the sizes either side has no price for.
func (d Delta) unknown() []string { return union(d.Old.Unknown, d.New.Unknown) }

// notKnown tells that the estimate counted nothing and left sizes out: its figure is not $0.00.
func (e Estimate) notKnown() bool { return e.Min == 0 && e.Max == 0 && len(e.Unknown) > 0 }

// figure is the estimate's monthly figure, "not known" when it counted nothing but unpriced sizes.
func (e Estimate) figure() string {
	if e.notKnown() {
		return "not known"
	}
	return money(e.Min, e.Max, false) + "/month"
}

// Citation says where the estimate's prices come from: "prices: SOURCE, DATE", and the HA fee's
// and each size's source when it counts one from elsewhere.
func (e Estimate) Citation() string {
	text := "prices: " + e.Source + ", " + e.Date
	if e.HAFeeSource != "" {
		text += "; the HA fee: " + e.HAFeeSource
	}
	for _, size := range slices.Sorted(maps.Keys(e.SizeSources)) {
		text += "; " + size + ": " + e.SizeSources[size]
	}
	return text
}

// union is the sizes of a and b, each once, sorted.
func union(a, b []string) []string {
	out := append(slices.Clone(a), b...)
	sort.Strings(out)
	return slices.Compact(out)
}

func money(low, high float64, signed bool) string {
	one := func(v float64) string {
		if signed && v >= 0 {
			return fmt.Sprintf("+$%.2f", v)
		}
		if v < 0 {
			return fmt.Sprintf("-$%.2f", -v)
		}
		return fmt.Sprintf("$%.2f", v)
	}
	if low == high {
		return one(low)
	}
	// A dash between two signed figures reads as a minus ("+$40.00–-$120.00"): words do not.
	if signed && low < 0 {
		return one(low) + " to " + one(high)
	}
	return one(low) + "–" + one(high)
}

// pools calls f with every message under m (m included) that has a size and a node count: the
// node pools, default or not.
func pools(m protoreflect.Message, f func(protoreflect.Message)) {
	if has(m, kindfield.SpecSize) && has(m, kindfield.SpecNodeCount) {
		f(m)
	}
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Message() != nil && !fd.IsList() && !fd.IsMap() && m.Has(fd) {
			pools(m.Get(fd).Message(), f)
		}
	}
}

func has(m protoreflect.Message, jsonName string) bool {
	return m.Descriptor().Fields().ByJSONName(jsonName) != nil
}
