package deploy

import (
	"context"
	"strings"
	"time"

	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"

	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/deploy/createguard"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/fielddrift"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/rotationrun"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/clusterplane/clusterplane/pkg/pulumi/stackrecord"
)

// StatusOptions steer Status.
type StatusOptions struct {
	// Exists tells whether a referenced stack holds what it deployed (nil: not asked).
	Exists func(key string) (bool, error)
	// Drift reads the cloud for the Drifted condition, as Drift does. Without it Status reads
	// only the backend, and Drifted is Unknown (NotChecked): a fleet's status takes seconds, not
	// a preview of every stack.
	Drift bool
	// AfterUp, when set with Drift, is the outcome of the up this status follows on the same
	// stack. An up that succeeded and read the cloud at the start of its own engine run
	// (Result.Refreshed) wrote the cloud as it read it, with its own changes on top, into the
	// state: Drifted then compares that state with the manifest (a preview that reads no cloud)
	// instead of reading the cloud a second time (upRead says when).
	AfterUp *outcome.Outcome
}

// Status reports the target's stack: Ready (the last update succeeded and deployed this
// manifest, and the stacks it references exist) and Drifted (as Drift finds it, when asked), its
// generations and its non-secret outputs.
func (d *Deployer) Status(ctx context.Context, t deploytarget.Target, opts StatusOptions) (out outcome.Outcome) {
	defer outcome.Stamp(&out, t, time.Now())
	defer d.unrecordedInStatus(t, opts.Drift, &out)
	// The stack is named as up's table and the JSON report name it, whether it exists or not:
	// the Pulumi CLI's longer name (organization/<kind>/<stack>) appears only inside the pulumi
	// commands clusterplane prints.
	report := &outcome.StackStatus{Stack: t.Key(), Generation: deploytarget.Generation(t.Input), Outputs: map[string]any{}}
	o := outcome.Outcome{Status: outcome.Done, Report: report, Reason: "status"}
	// Without the cloud to compare, the records are read from the backend's storage where it can
	// be: a fleet's status then starts no engine per stack. So does status --drift for a stack
	// the fleet scan vouches for: the scan read its records so and found the cloud as they say.
	st, last, s, asDeployed, err := d.records(ctx, t, opts.Drift && !d.unchanged(t))
	if errors.Is(err, stackstate.ErrNotDeployed) {
		d.notDeployedStatus(t, &o)
		return o
	}
	if err != nil {
		return failed(err)
	}
	if s != nil {
		defer s.Close()
	}
	outputs := st.Outputs()
	for name, out := range outputs {
		switch {
		case name == deploytarget.GenerationOutput:
			report.ObservedGeneration, _ = out.Value.(string)
		case name == deploytarget.ManifestOutput, name == stackrecord.ProgramOutput, out.Secret:
		default:
			report.Outputs[name] = out.Value
		}
	}
	report.LastUpdate = last
	// NODES and COST are the cloud's as last read, not the manifest's: they differ after a manifest
	// edit not yet deployed, or a console change a refresh read back.
	report.Recorded = fielddrift.Recorded(t, st, outputs)
	ready := readyOf(last, report)
	if _, held := st.IDs(deploytarget.GuardedType(t.Effects)); last == nil && held {
		// An up killed before it could record itself, its resource since recorded (refresh
		// --import-pending-create): the stack holds it, but no up finished.
		ready.Message = "the stack holds its resources, but no up has finished on it (one was interrupted): run up"
	}
	if ready.Reason == outcome.ManifestChanged && SameAsDeployed(t, outputs) {
		// The manifest the stack recorded is this one: only the generation's encoding changed
		// (regions were an enum before issue 33, and the generation hashes the binary form).
		ready = outcome.Condition{Type: "Ready", Status: "True", Reason: outcome.Deployed, Message: lastSucceeded(last)}
	}
	since := fielddrift.SinceOf(t, outputs)
	if ready.Reason == outcome.ManifestChanged {
		if changed := since.Paths(); changed != "" {
			ready.Message = "the manifest changed since the last up (" + changed + "); " + changedAdvice(t, outputs)
		}
	}
	if left := fielddrift.AdoptionLeft(last); ready.Status == "True" && len(left) > 0 {
		// What an adoption left as the cloud had it is pending until an up, as an edit is.
		ready = outcome.Condition{Type: "Ready", Status: "False", Reason: outcome.ManifestChanged,
			Message: "the adoption took over " + strings.Join(left, ", ") + " as the cloud had it, unlike the manifest; run up to set them"}
	}
	if ready.Status == "True" {
		if missing := missingReferences(t, opts.Exists); missing != "" {
			ready = outcome.Condition{Type: "Ready", Status: "False", Reason: outcome.ReferenceMissing,
				Message: "the stack it references, " + missing + ", does not exist (destroyed?); its resources may be gone"}
		}
	}
	if ready.Reason == outcome.ManifestChanged || ready.Reason.LastNotSucceeded() {
		// The advice is a command the stack's lock would refuse: a killed run's lock is said here,
		// not first by the refusal of the command status advised.
		ready.Message += newRecovering(d).lockNote(ctx, t, s)
	}
	ready, answer := createguard.New(d.Backend).LeftInStatus(ctx, t, st, ready)
	if answer != nil {
		o.Unmanaged = answer.Live
	}
	ready = rotationrun.RotationUnderWay(outputs, ready)
	opened := stackOpened{Stack: s, asDeployed: asDeployed, since: since, readByUp: upRead(opts.AfterUp, last)}
	ready, drifted, err := d.driftInStatus(ctx, t, opened, st, answer, opts.Drift, &o, ready)
	if err != nil {
		return failed(err)
	}
	report.Conditions = []outcome.Condition{ready, drifted}
	return o
}

// notDeployedStatus is the status o of t's stack, which does not exist: up deploys it, unless
// status --drift's fleet scan found its cluster deployed from another backend, which up refuses.
func (d *Deployer) notDeployedStatus(t deploytarget.Target, o *outcome.Outcome) {
	message := "the stack does not exist yet: run up"
	if refused, live := d.refusedElsewhere(t); refused != "" {
		message, o.Unmanaged = refused, live
	}
	o.Report.Conditions = []outcome.Condition{
		{Type: "Ready", Status: "False", Reason: outcome.NotDeployed, Message: message},
		{Type: "Drifted", Status: "Unknown", Reason: outcome.NotDeployed, Message: "see Ready"},
	}
}

// changedAdvice is what status advises for a manifest changed since the last up: run up, unless
// up is certain to refuse a change (one the providers cannot carry out, and no read of the cloud
// could find already made), then the refusal up would give: status never advises a command that
// can only be refused.
func changedAdvice(t deploytarget.Target, outputs map[string]stackstate.Output) string {
	refused, err := t.Refused(outputs)
	if err != nil {
		return "run up"
	}
	var certain []string
	for _, c := range refused {
		if !fielddrift.OnPaper(c) && !fielddrift.NotApplied(c) {
			certain = append(certain, c.Path+": "+c.Reason)
		}
	}
	if len(certain) == 0 {
		return "run up"
	}
	return "up refuses it (" + strings.Join(certain, "; ") + ")"
}

// driftInStatus is status's Drifted condition, and its Ready condition as what it finds changes
// it. Creates pending make the stack not ready, whatever the cloud holds. Else status --drift
// compares the cloud as drift does: a stack the fleet scan vouches for (its manifest, build and
// cloud as its last up left them) is in sync without an engine, the others are previewed. Plain
// status does not compare.
func (d *Deployer) driftInStatus(ctx context.Context, t deploytarget.Target, opened stackOpened, st stackstate.State, answer *createguard.Lookup, drift bool, o *outcome.Outcome,
	ready outcome.Condition) (outcome.Condition, outcome.Condition, error) {
	s := opened.Stack
	switch {
	case len(st.PendingCreates()) > 0:
		if s == nil {
			// The advice names the stack's lock and its cancel command: the stack says them.
			var err error
			if s, err = d.stacks().open(ctx, t); err != nil {
				return ready, outcome.Condition{}, err
			}
			defer s.Close()
		}
		ready = outcome.Condition{Type: "Ready", Status: "False", Reason: outcome.PendingCreates,
			Message: newRecovering(d).pendingCreates(ctx, t, s, st, answer).Advice(t.File)}
		return ready, outcome.Condition{Type: "Drifted", Status: "Unknown", Reason: outcome.PendingCreates, Message: "see Ready"}, nil
	case !drift:
		return ready, outcome.Condition{Type: "Drifted", Status: "Unknown", Reason: outcome.NotChecked,
			Message: "status reads the backend only: run drift, or status --drift, to compare with the cloud"}, nil
	case len(st.Resources()) == 0:
		// Destroyed (or never deployed): nothing of it is in the cloud to differ, as drift says.
		return ready, outcome.Condition{Type: "Drifted", Status: "Unknown", Reason: outcome.NotDeployed, Message: "see Ready"}, nil
	case d.unchanged(t):
		// As drift does: no preview, no engine, the same verdict. The scan found the cloud as
		// the stack recorded it.
		o.Report.Cloud = o.Report.Recorded
		return ready, outcome.Condition{Type: "Drifted", Status: "False", Reason: outcome.InSync,
			Message: "the cloud matches the manifest (fleet scan: " + d.Scanned[t.Key()].Why + ")"}, nil
	}
	if err := d.paceRead(ctx, t, opened); err != nil {
		return ready, outcome.Condition{}, err
	}
	if rec, err := rotationrun.RecordedRotation(st.Outputs()); err == nil && rec != nil && rec.Phase != rotation.Done {
		// The stack holds a rotation's pools as it stopped: what a preview finds then is the
		// rotation's unfinished work, said by Ready (RotationUnderWay), not the cloud's change.
		return ready, outcome.Condition{Type: "Drifted", Status: "Unknown", Reason: outcome.RotationUnderWay,
			Message: "a rotation of pool " + rec.Pool + " stopped midway: see Ready; drift is compared once up finishes it"}, nil
	}
	if opened.readByUp {
		// The program takes what it would ask the cloud from the state the up just read, as the
		// preview does (upRead): DigitalOcean's cluster its version, so that no list of the
		// account's clusters is sent.
		t = t.WithUpRead(st.Read())
	}
	drifted, read := d.driftedOf(ctx, t, opened, st.Outputs())
	if drifted.Status != "Unknown" {
		o.Report.Cloud = fielddrift.Read(o.Report.Recorded, read)
	}
	if orphans, err := d.orphans(ctx, t, st); err != nil {
		drifted = outcome.Condition{Type: "Drifted", Status: "Unknown", Reason: outcome.PreviewFailed, Message: err.Error()}
	} else if len(orphans) > 0 {
		o.Orphans = orphans
		ready = outcome.Condition{Type: "Ready", Status: "False", Reason: outcome.OrphanPool, Message: describeOrphans(orphans)}
	}
	return ready, drifted, nil
}

// readyOf is the Ready condition from the last update and the generations.
func readyOf(last *stackstate.Update, report *outcome.StackStatus) outcome.Condition {
	switch {
	case last == nil:
		return outcome.Condition{Type: "Ready", Status: "False", Reason: outcome.NotDeployed, Message: "the stack has no update yet: run up"}
	case last.Result == "failed":
		// Pulumi's history records an update cancelled with Ctrl-C as failed too.
		return outcome.Condition{Type: "Ready", Status: "False", Reason: outcome.LastFailed,
			Message: "the last " + last.Operation + " failed or was cancelled: run " + runreport.Command(last.Operation) + " again"}
	case last.Result != "succeeded":
		return outcome.Condition{Type: "Ready", Status: "False", Reason: outcome.LastResult(last.Result),
			Message: "the last " + last.Operation + " " + last.Result}
	case last.Operation == "destroy":
		return outcome.Condition{Type: "Ready", Status: "False", Reason: outcome.Destroyed, Message: "the stack's resources were destroyed"}
	case report.ObservedGeneration != report.Generation:
		return outcome.Condition{Type: "Ready", Status: "False", Reason: outcome.ManifestChanged,
			Message: "the manifest changed since the last up (generation " + report.ObservedGeneration + "); run up"}
	}
	return outcome.Condition{Type: "Ready", Status: "True", Reason: outcome.Deployed, Message: lastSucceeded(last)}
}

// SameAsDeployed tells whether the manifest the stack recorded at its last up is t's, field for
// field; false when the stack recorded none.
func SameAsDeployed(t deploytarget.Target, outputs map[string]stackstate.Output) bool {
	old, err := t.DeployedInput(outputs)
	return err == nil && old != nil && proto.Equal(apikinds.Target(old), apikinds.Target(t.Input))
}

// missingReferences names the stacks the target references that do not exist, "" when all do.
func missingReferences(t deploytarget.Target, exists func(string) (bool, error)) string {
	if exists == nil {
		return ""
	}
	var missing []string
	for _, ref := range deploytarget.References(t.Input) {
		if ok, err := exists(ref); err == nil && !ok {
			missing = append(missing, ref)
		}
	}
	return strings.Join(missing, ", ")
}

// stackOpened is the stack status opened to read the cloud (nil when it read the backend's
// storage), the target its program deploys (openAsDeployed) and the manifest's change since
// the last up. readByUp tells that its state is the cloud as the up just run read it (upRead):
// the drift preview then reads no cloud.
type stackOpened struct {
	stackstate.Stack
	asDeployed *deploytarget.Target
	since      fielddrift.Since
	readByUp   bool
}

// upRead tells that the stack's state is the cloud as up, the up a status follows, read it: up
// succeeded, its engine run read the cloud into the state before it changed anything
// (Result.Refreshed), and the stack's last update is still a successful update. Such an up
// already compared that read with the manifest and put back whatever it could, and what it could
// not put back ended it Drifted, not Done (fielddrift.PutBack); the state it wrote holds the
// cloud's values with the up's own changes as the provider answered them. Comparing that state
// with the manifest offline (a preview without refresh) then finds what a second read would,
// a provider whose answer still differs from the manifest included, without asking the cloud
// again. A change made in the cloud after the up is not seen; nor would a read a moment later
// see one made after it, and the drift check that runs every --drift-every reads the cloud.
//
// An up that trusted the state (NoRefresh with an unchanged manifest), one that did not run (the
// fleet scan vouched for the stack, which status trusts on its own), or a stack whose last update
// is another operation's (a destroy, a refresh, an adoption landing between the two) reads the
// cloud as ever.
func upRead(up *outcome.Outcome, last *stackstate.Update) bool {
	return up != nil && up.Status == outcome.Done && !up.NotRun && up.Result != nil && up.Result.Refreshed &&
		last != nil && last.Operation == "update" && last.Result == "succeeded"
}

// paceRead holds a drift preview that reads the cloud until its requests fit the cloud's rate
// limit (Pace); one that compares the state an up just read (readByUp) sends none and goes at once.
func (d *Deployer) paceRead(ctx context.Context, t deploytarget.Target, s stackOpened) error {
	if s.readByUp {
		return nil
	}
	return d.Pace.Wait(ctx, t)
}

// driftedOf previews the stack against the cloud, in memory, as Drift does (findDrift); against
// its state alone when that is the cloud as the up just run read it (s.readByUp).
func (d *Deployer) driftedOf(ctx context.Context, t deploytarget.Target, s stackOpened, outputs map[string]stackstate.Output) (outcome.Condition, []outcome.FieldDrift) {
	f, err := d.findDrift(ctx, t, s.Stack, s.asDeployed, outputs, s.since, "status --drift", nil, !s.readByUp)
	if err != nil {
		return fielddrift.FailedCondition(err)
	}
	said := ""
	if len(f.pending) > 0 {
		said = fielddrift.PendingSaid(t, s.since, f.pending)
	}
	// Found lists drifted fields only with a reason: without one, both are empty.
	return fielddrift.Condition(f.reason, f.drifted, said), f.drifted
}
