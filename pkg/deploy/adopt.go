package deploy

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"time"

	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/fielddrift"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
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
	if t.Effects == nil {
		return failed(errors.Errorf("no effects are known for kind %q", t.Name))
	}
	// Held to the end, as up holds it: another command on the stack meanwhile would write the
	// state this import writes.
	unlock, _, err := d.stacks().lockStack(ctx, t)
	if err != nil {
		return failed(err)
	}
	defer unlock()
	// Before the first request: the default pool's tag below reads the cluster.
	if err := d.Pace.Wait(ctx, t); err != nil {
		return failed(err)
	}
	return newAdopting(d).adopt(ctx, t, id, opts)
}

// adopting is how Adopt, and an up taking back what its own create left (createguard), import a
// cluster or node pool into a stack whose lock the caller holds. It holds the stacks and the
// progress writer of the engine's run.
type adopting struct {
	stacks   stacks
	progress progressTo
}

// newAdopting is the deployer's adopting step.
func newAdopting(d *Deployer) adopting {
	return adopting{stacks: d.stacks(), progress: d.Progress}
}

// adopt is Adopt once the stack's lock is held and the cloud's pace kept.
func (d adopting) adopt(ctx context.Context, t deploytarget.Target, id string, opts AdoptOptions) (out outcome.Outcome) {
	table := t.Effects
	typ := deploytarget.GuardedType(table)
	readied, err := readyImport(ctx, t, id)
	if err != nil {
		return failed(err)
	}
	if readied != nil {
		// Said whatever the adoption's outcome: the cloud was changed all the same.
		defer func() { out.AddToReason("; ", readied.Said); out.Readied = readied }()
	}
	// The program runs to import: a module takes the cluster as the cloud holds it.
	s, created, err := d.stacks.openOrCreate(ctx, t.WithImporting())
	if err != nil {
		return failed(err)
	}
	defer s.Close()
	also, err := importsWith(ctx, t, s, id)
	if err != nil {
		forget(ctx, s, created)
		return failed(err)
	}
	imports := map[string]string{typ: id}
	for other, otherID := range also {
		imports[other] = otherID
	}
	importing := importingAs(imports)
	res, previewErr := d.previewImport(ctx, t, s, importing(nil))
	var blocking, inPlace []outcome.Disagreement
	// ignore are, by type, the properties each import leaves as the cloud has them: the
	// differences the provider applies in place, which the next up carries out.
	ignore := map[string][]string{}
	for _, imported := range slices.Sorted(maps.Keys(imports)) {
		for _, dis := range fielddrift.Disagreements(table, t.Input, imported, res.Steps) {
			if opts.Exact || dis.Blocks() {
				blocking = append(blocking, dis)
				continue
			}
			inPlace = append(inPlace, dis)
			ignore[imported] = append(ignore[imported], dis.Property)
		}
	}
	blocking = append(blocking, fielddrift.RefusedByModule(previewErr)...)
	if len(blocking) > 0 {
		forget(ctx, s, created)
		return outcome.Outcome{Status: outcome.Blocked, Reason: "not adopted: the manifest disagrees with " + typ + " " + id,
			Disagreements: blocking, InPlace: inPlace, Result: &res}
	}
	if previewErr != nil {
		forget(ctx, s, created)
		return failed(previewErr)
	}
	// The history says the update was an adoption, so that status says so too (lastSucceeded).
	upOpts := stackstate.Options{Progress: d.progress.of(t), Transform: importing(ignore), Message: adoptedMessage}
	if len(ignore) > 0 {
		// The history says so, and which fields: the manifest is recorded as deployed, yet the
		// resource differs from it, so the fleet scan must not take the stack for unchanged until
		// an up has run, and that up sets them for the first time (no change in the cloud).
		upOpts.Message = fielddrift.AdoptionMessage(inPlace)
	}
	up, err := s.Up(ctx, upOpts)
	if err != nil {
		return failed(err)
	}
	o := outcome.Outcome{Status: outcome.Done, Result: &up, InPlace: inPlace}
	o.SayReason(outcome.SaysItself, "adopted "+typ+" "+id+" into "+t.Key()+inPlaceNote(inPlace), "")
	return o
}

// importingAs makes every registration of a type in imports import the resource of that type's
// id (the one adopted, and what its module made beside it: importsWith), leaving the properties
// ignore names for its type as the cloud has them: the engine follows an import with an update of
// whatever the inputs say otherwise, and those differences are for the next up to carry out.
func importingAs(imports map[string]string) func(ignore map[string][]string) pulumi.ResourceTransform {
	return func(ignore map[string][]string) pulumi.ResourceTransform {
		return func(_ context.Context, args *pulumi.ResourceTransformArgs) *pulumi.ResourceTransformResult {
			id, ok := imports[args.Type]
			if !ok {
				return nil
			}
			args.Opts.Import = pulumi.ID(id)
			args.Opts.IgnoreChanges = append(args.Opts.IgnoreChanges, ignore[args.Type]...)
			return &pulumi.ResourceTransformResult{Props: args.Props, Opts: args.Opts}
		}
	}
}

// importsWith are what t's kind's module makes beside the live resource id that the cloud holds
// for it (kinds.ImportsWith), by type, less the types the stack s already holds: an up taking back
// what its create left holds the firewall it made before the cluster.
func importsWith(ctx context.Context, t deploytarget.Target, s stackstate.Stack, id string) (map[string]string, error) {
	if t.ImportsWith == nil {
		return nil, nil
	}
	also, err := t.ImportsWith(ctx, t.Input, id)
	if err != nil || len(also) == 0 {
		return nil, errors.Wrap(err, "find what the module made beside it")
	}
	st, err := s.State(ctx)
	if err != nil {
		return nil, err
	}
	for typ := range also {
		if _, held := st.IDs(typ); held {
			delete(also, typ)
		}
	}
	return also, nil
}

// adoptedMessage is the message of an adoption's update that left nothing for the next up, as
// fielddrift.AdoptionMessage is of one that left changes: either way the stack's history tells
// an adoption from an up.
const adoptedMessage = "clusterplane adopt: imported as the cloud had it"

// isAdoption tells whether last, a stack's last update, was an adoption (adoptedMessage, or
// fielddrift.AdoptionMessage).
func isAdoption(last *stackstate.Update) bool {
	return last != nil && last.Operation == "update" && (last.Message == adoptedMessage || fielddrift.AdoptionLeft(last) != nil)
}

// lastSucceeded is status's Ready message for a stack whose last update succeeded: an adoption
// is said as one, an import of what the cloud held, not as an up that deployed the manifest.
func lastSucceeded(last *stackstate.Update) string {
	if isAdoption(last) {
		return "the last update, an adoption (an import of what the cloud held), succeeded"
	}
	return "the last " + last.Operation + " succeeded"
}

// readyImport readies the live resource id for its import where t's kind needs it
// (kinds.ReadyImport): what it changed in the cloud, nil for nothing.
func readyImport(ctx context.Context, t deploytarget.Target, id string) (*kinds.Readied, error) {
	if t.ReadyImport == nil {
		return nil, nil
	}
	r, err := t.ReadyImport(ctx, t.Input, id)
	if err != nil || r.Said == "" {
		return nil, errors.Wrap(err, "ready the resource for its import")
	}
	return &r, nil
}

// previewImport previews the import with transform. Its progress is held until the preview
// ends, and dropped when the module refused the manifest (fielddrift.RefusedByModule): the
// engine then says the refusal as an unhandled error of the program, with its Diagnostics, which
// adopt says itself, in its words, as a disagreement. An import's preview reads one resource: holding its
// progress for that long hides nothing a user waits on.
func (d adopting) previewImport(ctx context.Context, t deploytarget.Target, s stackstate.Stack,
	transform pulumi.ResourceTransform) (stackstate.Result, error) {
	w := d.progress.of(t)
	if w == nil {
		return s.Preview(ctx, stackstate.Options{Transform: transform})
	}
	var held bytes.Buffer
	res, err := s.Preview(ctx, stackstate.Options{Progress: &held, Transform: transform})
	if len(fielddrift.RefusedByModule(err)) == 0 {
		_, _ = w.Write(held.Bytes()) // progress lost is no failure of the adoption
	}
	return res, err
}

// inPlaceNote is what an adoption's reason adds when the next up changes fields in place.
func inPlaceNote(inPlace []outcome.Disagreement) string {
	if len(inPlace) == 0 {
		return ""
	}
	return "; the next up changes in place what the manifest says otherwise"
}
