package render

import (
	"strings"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
	"github.com/clusterplane/clusterplane/pkg/deploy/fielddrift"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/manifest/rules"
	"google.golang.org/protobuf/proto"
)

// Difference is one manifest field on which the cloud, the manifest and the stack's record do not
// all agree, as --report-file writes it: each value as JSON shows it, nil when unset or when the
// run does not know it, diff.Secret for every value of a secret field.
type Difference struct {
	Field string `json:"field"`
	// Cloud is what the cloud has (for up, what it had before the up changed it); Manifest what
	// the manifest says; Recorded what the stack's last up applied.
	Cloud    any `json:"cloud"`
	Manifest any `json:"manifest"`
	Recorded any `json:"recorded"`
}

// Differences are the fields of a stack's outcome on which the cloud, the manifest and the
// stack's record differ, each once, in this order: for preview and up the manifest's changes
// since the stack's last up; then what the run found changed in the cloud (put back, set for the
// first time, or left as drift) and the changes it found pending; then an adoption's
// disagreements. Every value of a secret field
// reads diff.Secret: the report file must hold no secret, whichever side carried it.
func Differences(command operation.Name, o outcome.Outcome) []Difference {
	rec := recordOf(o)
	var out []Difference
	seen := map[string]bool{}
	add := func(d Difference) {
		if !seen[d.Field] {
			seen[d.Field] = true
			out = append(out, masked(o.Target.Input, d))
		}
	}
	if (command == operation.Preview || command == operation.Up) && o.Result != nil {
		cloud := cloudValues(o)
		for _, c := range rec.changes {
			add(Difference{Field: c.Path, Cloud: cloud[c.Path], Manifest: c.New, Recorded: c.Old})
		}
	}
	for _, fields := range [][]outcome.FieldDrift{o.PutBack, o.Sets, o.Drift, o.Pending} {
		for _, f := range fields {
			recorded := f.Recorded // the operation's own reading, where it made one
			if recorded == nil {
				recorded = rec.value(f.Field, f.Manifest)
			}
			add(Difference{Field: f.Field, Cloud: f.Live, Manifest: f.Manifest, Recorded: recorded})
		}
	}
	// An adoption records nothing before it: the stack had no last up to compare with.
	for _, d := range append(append([]outcome.Disagreement{}, o.Disagreements...), o.InPlace...) {
		add(Difference{Field: d.Field, Cloud: d.Live, Manifest: d.Manifest})
	}
	return out
}

// record is what the run knows of the manifest the stack's last up applied: known when the stack
// recorded one (its outputs before the operation), with the manifest's changes since.
type record struct {
	known   bool
	changes []diff.Change
	paths   map[string]diff.Change
}

func recordOf(o outcome.Outcome) record {
	if o.Result == nil || o.Target.Input == nil {
		return record{}
	}
	res, err := o.Target.SinceDeployed(stackstate.OutputsOf(o.Result.Previous))
	if err != nil || res == nil {
		return record{}
	}
	r := record{known: true, changes: res.Changes, paths: map[string]diff.Change{}}
	for _, c := range res.Changes {
		r.paths[c.Path] = c
	}
	return r
}

// value is what the last up applied to field, whose value the manifest now has as manifest: the
// change's old value when the manifest changed the field since, the manifest's own when it did
// not. Nil when the stack recorded nothing, when the field is no manifest path (a property no
// field sends) or when it names several fields, one of them changed: the run cannot tell.
func (r record) value(field string, manifest any) any {
	if !r.known {
		return nil
	}
	parts := strings.Split(field, " or ")
	for _, p := range parts {
		if strings.Contains(p, " ") {
			return nil
		}
	}
	if c, ok := r.paths[field]; ok {
		return c.Old
	}
	for _, p := range parts {
		if fielddrift.Among(p, r.paths) {
			return nil
		}
	}
	return manifest
}

// cloudValues are the cloud's values, by manifest field, of what the operation's steps change, as
// its read of the cloud found them: what a manifest change is made over. A property sent from
// several fields ("a or b") counts for each of them.
func cloudValues(o outcome.Outcome) map[string]any {
	out := map[string]any{}
	_, drifted, pending := fielddrift.DriftOf(o.Target, *o.Result, nil)
	for _, f := range append(drifted, pending...) {
		for _, name := range strings.Split(f.Field, " or ") {
			out[name] = f.Live
		}
	}
	return out
}

// masked is d with every value that is set read as diff.Secret when the field is secret: the
// manifest's schema says so (debug_redact), or a value already reads diff.Secret (the engine
// marks what it holds as secret, diff the manifest's secret fields).
func masked(input proto.Message, d Difference) Difference {
	if !secretField(input, d.Field) && !holdsSecret(d.Cloud) && !holdsSecret(d.Manifest) && !holdsSecret(d.Recorded) {
		return d
	}
	for _, v := range []*any{&d.Cloud, &d.Manifest, &d.Recorded} {
		if *v != nil {
			*v = diff.Secret
		}
	}
	return d
}

// holdsSecret tells whether v is, or holds, a value marked secret.
func holdsSecret(v any) bool {
	switch v := v.(type) {
	case string:
		return v == diff.Secret
	case []any:
		for _, e := range v {
			if holdsSecret(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range v {
			if holdsSecret(e) {
				return true
			}
		}
	}
	return false
}

// secretField tells whether the manifest field at path (as diff names it: "spec.x.y" under the
// stack input's target, "providerConfig.apiToken" at its top), or a field that holds it, is a
// secret by the schema.
func secretField(input proto.Message, path string) bool {
	if input == nil {
		return false
	}
	md := input.ProtoReflect().Descriptor()
	if !strings.HasPrefix(path, kindfield.StackInputProviderConfig+".") {
		fd := md.Fields().ByJSONName(kindfield.StackInputTarget)
		if fd == nil || fd.Message() == nil {
			return false
		}
		md = fd.Message()
	}
	for _, part := range strings.Split(path, ".") {
		fd := md.Fields().ByJSONName(part)
		if fd == nil {
			return false
		}
		if rules.Secret(fd) {
			return true
		}
		if fd.IsMap() {
			fd = fd.MapValue()
		}
		if fd.Message() == nil {
			return false
		}
		md = fd.Message()
	}
	return false
}

// redactValue is v with every string in it passed through redact: a value the cloud holds (a
// tag, a label) may carry a token the run knows, and the file must not.
func redactValue(v any, redact func(string) string) any {
	switch v := v.(type) {
	case string:
		return redact(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = redactValue(e, redact)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[redact(k)] = redactValue(e, redact)
		}
		return out
	}
	return v
}

// rowCosts are a stack's monthly costs for its row: after is the manifest's in every command;
// before, for drift, what the cloud runs, the manifest with the cloud's values of the drifted
// fields (once drift read the cloud). Preview's and up's come from the report (Report.Price),
// status's before is not said (its -o json has the stack's recorded cost). Nil when not priced,
// or when the manifest names a size without a known price: a partial sum would read as the cost.
func rowCosts(command operation.Name, o outcome.Outcome, prices func(cloud string) cost.Prices) (before, after *Money) {
	if prices == nil || o.Target.Input == nil {
		return nil, nil
	}
	d, ok := cloudlist.OfInput(o.Target.Input)
	if !ok {
		return nil, nil
	}
	p := prices(string(d.ID()))
	after = moneyOf(cost.Of(o.Target.Input, p))
	if command == operation.Drift && (o.Result != nil || len(o.Drift) > 0) {
		before = moneyOf(cost.Of(fielddrift.WithValues(o.Target.Input, o.Drift), p))
	}
	return before, after
}

// moneyOf is an estimate as a row's cost, nil when it leaves out a size it could not price.
func moneyOf(e cost.Estimate) *Money {
	if len(e.Unknown) > 0 {
		return nil
	}
	return &Money{e.Min, e.Max}
}
