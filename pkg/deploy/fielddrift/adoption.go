package fielddrift

import (
	"errors"
	"reflect"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"google.golang.org/protobuf/proto"

	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// KnownWhenUpRuns stands in a disagreement for a value up sends that only its update works out:
// the id of a firewall the module would create, say.
const KnownWhenUpRuns = "(known only when up runs)"

// AdoptedWithChangesLeft begins the message of an adoption's update that left in-place changes
// for the next up; the fields follow it (adoptionMessage).
const AdoptedWithChangesLeft = "clusterplane adopt: in-place changes left for the next up"

// AdoptionMessage is the message of an adoption's update that left the in-place differences for
// the next up: AdoptedWithChangesLeft, then the fields.
func AdoptionMessage(inPlace []outcome.Disagreement) string {
	fields := make([]string, len(inPlace))
	for i, d := range inPlace {
		fields[i] = d.Field
	}
	return AdoptedWithChangesLeft + ": " + strings.Join(fields, ", ")
}

// AdoptionLeft are the manifest fields an adoption left for the next up, when last, the stack's
// last update, is that adoption (adoptionMessage); nil otherwise.
func AdoptionLeft(last *stackstate.Update) []string {
	if last == nil || last.Operation != "update" {
		return nil
	}
	rest, ok := strings.CutPrefix(last.Message, AdoptedWithChangesLeft)
	if !ok {
		return nil
	}
	fields := []string{}
	for _, f := range strings.Split(strings.TrimPrefix(rest, ": "), ", ") {
		if f != "" {
			fields = append(fields, f)
		}
	}
	return fields
}

// Disagreements are the manifest fields an adoption's preview would change on the imported
// resource of type typ, each with what changing it does: the engine imports the live resource,
// then plans an update (or replacement) for whatever the manifest says otherwise. A property the
// provider does not read back on import (live unknown) is no disagreement: the manifest's value
// is what the state takes; one it reads back as an output, or under another name (a DigitalOcean
// pool's count, as actualNodeCount), is compared there.
func Disagreements(table *effects.Table, input proto.Message, typ string, steps []stackstate.Step) []outcome.Disagreement {
	seen := map[string]bool{}
	var out []outcome.Disagreement
	for _, step := range steps {
		if step.Type != typ || step.IsAction(apitype.OpImport, apitype.OpSame, apitype.OpRead) {
			continue
		}
		for _, path := range PropertyPaths(step.Paths) {
			manifest, live := ValueAt(step.New, path), ValueAt(step.Old, path)
			if live == nil {
				// What the import read from the cloud: under the name the provider files it
				// under where it has one (its own name then holds a zero), else its own.
				if alias, ok := table.ReadBack[path]; ok {
					live = ValueAt(step.Live, alias)
				} else {
					live = ValueAt(step.Live, path)
				}
			}
			// A property the manifest does not send is the cloud's to keep.
			if live == nil || manifest == nil || reflect.DeepEqual(numeric(manifest), numeric(live)) {
				continue
			}
			field := fieldsOf(table, typ, path)
			if seen[field] {
				continue
			}
			seen[field] = true
			rows := rowsOf(table, typ, path)
			manifest, live = inManifestTerms(rows, manifest), inManifestTerms(rows, live)
			if manifest == plugin.UnknownStringValue {
				// The engine's stand-in for a value the update works out (the id of what the
				// module creates beside it), never a value itself.
				manifest = KnownWhenUpRuns
			}
			decision := decide(rows, input, live)
			out = append(out, outcome.Disagreement{Field: field, Manifest: manifest, Live: live, Effect: decision.Effect,
				Reason: decision.Reason, Property: path})
		}
	}
	return out
}

// numeric reads JSON numbers as float64, so that 2 and 2.0 agree.
func numeric(v any) any {
	switch n := v.(type) {
	case int:
		return float64(n)
	case int64:
		return float64(n)
	}
	return v
}

// RefusedByModule are the changes a kind's module refused while the engine ran its program (a
// Kubernetes version older than the cluster's, stackstate.ModuleRefusal), as disagreements like
// those the steps show: adopt names each by field, as the manifest and the cloud have it, and
// adopts nothing. None when err is no such refusal.
func RefusedByModule(err error) []outcome.Disagreement {
	var refused *stackstate.RefusedError
	if !errors.As(err, &refused) {
		return nil
	}
	var out []outcome.Disagreement
	for _, c := range refused.Changes {
		out = append(out, outcome.Disagreement{Field: c.Path, Manifest: c.New, Live: c.Old, Effect: c.Effect, Reason: c.Reason})
	}
	return out
}
