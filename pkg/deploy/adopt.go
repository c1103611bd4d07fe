package deploy

import (
	"context"
	"reflect"
	"strings"
	"time"

	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"

	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// AdoptOptions steer Adopt.
type AdoptOptions struct {
	// Exact blocks on every difference, in-place ones included, as adopt did before it took the
	// differences the provider applies in place.
	Exact bool
}

// Adopt brings the cloud's cluster or node pool with id under the target's stack with Pulumi's
// import: the target's module is deployed with the existing resource instead of a new one.
//
// A difference the provider would carry out in place (the tags clusterplane derives, labels, a
// node count) does not block: the import records it as the cloud has it, and it is listed in
// InPlace as what the next up changes. A difference that would replace the resource, or that the
// providers refuse, changes nothing: each is listed (Blocked) and the stack is left as it was (and
// removed when Adopt made it). With Exact every difference blocks.
func (d *Deployer) Adopt(ctx context.Context, t deploytarget.Target, id string, opts AdoptOptions) (out outcome.Outcome) {
	defer outcome.Stamp(&out, t, time.Now())
	table := t.Effects
	if table == nil {
		return failed(errors.Errorf("no effects are known for kind %q", t.Kind))
	}
	typ := table.Types[effects.Cluster]
	if typ == "" {
		typ = table.Types[effects.NodePool]
	}
	// Before the first request: the default pool's tag below reads the cluster.
	if err := d.Pace.Wait(ctx, t); err != nil {
		return failed(err)
	}
	if t.ReadyImport != nil {
		readied, err := t.ReadyImport(ctx, t.Input, id)
		if err != nil {
			return failed(errors.Wrap(err, "ready the resource for its import"))
		}
		if readied != "" {
			defer func() { out.Reason += "; " + readied }()
		}
	}
	s, created, err := d.openOrCreate(ctx, t)
	if err != nil {
		return failed(err)
	}
	defer s.Close()
	// Every registration of the adopted type imports the resource with this id, leaving the
	// properties in ignore as the cloud has them: the engine fails an import whose inputs differ
	// from the live resource's, and those differences are for the next up to carry out.
	importing := func(ignore []string) pulumi.ResourceTransform {
		return func(_ context.Context, args *pulumi.ResourceTransformArgs) *pulumi.ResourceTransformResult {
			if args.Type != typ {
				return nil
			}
			args.Opts.Import = pulumi.ID(id)
			args.Opts.IgnoreChanges = append(args.Opts.IgnoreChanges, ignore...)
			return &pulumi.ResourceTransformResult{Props: args.Props, Opts: args.Opts}
		}
	}
	res, previewErr := s.Preview(ctx, stackstate.Options{Progress: d.progress(t), Transform: importing(nil)})
	var blocking, inPlace []outcome.Disagreement
	for _, dis := range disagreements(table, t.Input, typ, res.Steps) {
		if opts.Exact || dis.Blocks() {
			blocking = append(blocking, dis)
			continue
		}
		inPlace = append(inPlace, dis)
	}
	if len(blocking) > 0 {
		forget(ctx, s, created)
		return outcome.Outcome{Status: outcome.Blocked, Reason: "not adopted: the manifest disagrees with " + typ + " " + id,
			Disagreements: blocking, InPlace: inPlace, Result: &res}
	}
	if previewErr != nil {
		forget(ctx, s, created)
		return failed(previewErr)
	}
	var ignore []string
	for _, dis := range inPlace {
		ignore = append(ignore, dis.Property)
	}
	upOpts := stackstate.Options{Progress: d.progress(t), Transform: importing(ignore)}
	if len(ignore) > 0 {
		// The history says so, and which fields: the manifest is recorded as deployed, yet the
		// resource differs from it, so the fleet scan must not take the stack for unchanged until
		// an up has run, and that up sets them for the first time (no change in the cloud).
		upOpts.Message = adoptionMessage(inPlace)
	}
	up, err := s.Up(ctx, upOpts)
	if err != nil {
		return failed(err)
	}
	o := outcome.Outcome{Status: outcome.Done, Result: &up, InPlace: inPlace, Reason: "adopted " + typ + " " + id + " into " + t.Key()}
	if len(inPlace) > 0 {
		o.Reason += "; the next up changes in place what the manifest says otherwise"
	}
	return o
}

// AdoptedWithChangesLeft begins the message of an adoption's update that left in-place changes
// for the next up; the fields follow it (adoptionMessage).
const AdoptedWithChangesLeft = "clusterplane adopt: in-place changes left for the next up"

// adoptionMessage is the message of an adoption's update that left the in-place differences for
// the next up: AdoptedWithChangesLeft, then the fields.
func adoptionMessage(inPlace []outcome.Disagreement) string {
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

// disagreements are the manifest fields an adoption's preview would change on the imported
// resource of type typ, each with what changing it does: the engine imports the live resource,
// then plans an update (or replacement) for whatever the manifest says otherwise. A property the
// provider does not read back on import (live unknown) is no disagreement: the manifest's value
// is what the state takes; one it reads back as an output, or under another name (a DigitalOcean
// pool's count, as actualNodeCount), is compared there.
func disagreements(table *effects.Table, input proto.Message, typ string, steps []stackstate.Step) []outcome.Disagreement {
	seen := map[string]bool{}
	var out []outcome.Disagreement
	for _, step := range steps {
		if step.Type != typ || step.IsAction(apitype.OpImport, apitype.OpSame, apitype.OpRead) {
			continue
		}
		for _, path := range propertyPaths(step.Paths) {
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
