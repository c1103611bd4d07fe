package outcome

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"google.golang.org/protobuf/proto"
)

// Status is how one target's operation ended.
type Status string

// The statuses.
const (
	// Done: the operation ran to its end (deployed, previewed, refreshed, destroyed, in sync).
	Done Status = "done"
	// Blocked: the operation ran, or was stopped before the engine, and found what must not pass
	// unasked: a refused change, a replacement, drift, a disagreeing adoption, no confirmation.
	Blocked Status = "blocked"
	// Failed: the operation failed; Err says why.
	Failed Status = "failed"
	// Skipped: a stack the target depends on did not deploy (BlockedBy), so it did not run.
	Skipped Status = "skipped"
	// Cancelled: interrupted (Ctrl-C) before it ended, or before it started.
	Cancelled Status = "cancelled"
	// Drifted: drift found the cloud different from the manifest, a finding and not a refusal
	// (drift exits 3 for it, as for a block).
	Drifted Status = "drifted"
)

// NotRun is the outcome of a stack left alone on purpose (Outcome.NotRun): v is the verdict that
// left it alone, reason says it for people.
func NotRun(v Verdict, reason string) Outcome {
	return Outcome{Status: Done, Verdict: v, Reason: reason, NotRun: true}
}

// Outcome is what one target's operation did.
type Outcome struct {
	Target deploytarget.Target
	Status Status
	// Reason says the outcome in a few words, e.g. "1 update", "refused: ...", "not confirmed".
	// Set it with SayReason where it says its row's word, so that Says and Rest agree with it.
	Reason string
	// Says is how Reason says the word its row leads with; Rest is what Reason says after that
	// word (SaysFirst). Neither is in the JSON report, which has the reason whole.
	Says Says
	Rest string
	// Err is the failure or the refusal, typed (see errors.go); nil when done.
	Err error
	// ErrSays is how Err's text says the reason: not at all (the row gives it after the reason),
	// first (a refusal's "refused: …" after the reason "refused"; ErrRest is what follows), or
	// itself (it is the reason, said once). Set it with Refuse where a refusal gives the reason.
	ErrSays Says
	ErrRest string
	// Orphans are pools a stopped rotation of the stack left in the cloud (drift, status --drift).
	Orphans []Orphan
	// BlockedBy is the stack whose failure skipped this one.
	BlockedBy string
	// Result is the engine's result of the operation, when the engine ran.
	Result *stackstate.Result
	Took   time.Duration
	// NotRun: the stack was left alone on purpose (Done): the fleet scan found it unchanged, or
	// --changed-since left it out; Verdict says which, Reason in words.
	NotRun bool
	// Verdict is what the operation decided where no engine step shows it (a stack left alone,
	// one that holds nothing, a preview not run); empty when the status and the engine's result
	// say it.
	Verdict Verdict

	// What the operation found, by operation.
	Drift []FieldDrift // drift; up: what the cloud still differs in, which no up puts back
	// Pending are the manifest's changes since the stack's last up that no up has applied yet,
	// and what an adoption took over as the cloud had it, with the recorded value (drift): the
	// next up applies them; the cloud did not change them.
	Pending []FieldDrift
	// PutBack are the fields an up found changed in the cloud and set back to the manifest's
	// values, with what the cloud had (up).
	PutBack []FieldDrift
	// Sets are the fields the stack took over as the cloud had them (an adoption's in-place
	// differences) that an up sets to the manifest's values for the first time (up, preview).
	Sets          []FieldDrift
	Report        *StackStatus   // status
	Kubeconfig    []byte         // kubeconfig, a secret
	Disagreements []Disagreement // adopt
	// InPlace are an adoption's differences that the next up changes in place (adopt).
	InPlace []Disagreement
	// Readied is what adopt changed in the cloud to ready the import (a pool tagged), nil for
	// nothing.
	Readied *kinds.Readied
	// Unmanaged are the clusters or node pools of the manifest's name the cloud holds and the
	// stack does not (up, status): what a failed create left, or what up refused to duplicate.
	Unmanaged []kinds.Live
	// Planned is the stack's part of a saved plan (PreviewPlan).
	Planned *PlannedStack
	// Policy are the rules of the policy (pkg/change/policy) the manifest breaks (preview, up).
	Policy []policy.Result
	// Rotations are the pool rotations up carries out for the manifest (preview).
	Rotations []rotation.Rotation
}

// StackFunc is what a Queue runs on one target: an operation applied to one stack (a stack
// function, not the operation itself, which the pipeline names).
type StackFunc func(ctx context.Context, t deploytarget.Target) Outcome

// Stamp says on an operation's outcome which target it is of and, unless the queue measures it,
// how long it took: the operations are called outside a queue too.
func Stamp(o *Outcome, t deploytarget.Target, start time.Time) {
	o.Target = t
	if o.Took == 0 {
		o.Took = time.Since(start)
	}
}

// Disagreement is a manifest field whose value differs from the live resource's.
type Disagreement struct {
	// Field is the manifest path, e.g. "spec.defaultNodePool.nodeCount".
	Field string `json:"field"`
	// Manifest and Live are both values in the manifest's terms (a negated field's property is
	// turned round); secrets read "[secret]".
	Manifest any `json:"manifest"`
	Live     any `json:"live"`
	// Effect is what deploying the manifest's value over the live one does (pkg/change/effects): update
	// (in place), ignored, replace or refused; "unknown" when no row of the effects table says.
	Effect effects.Effect `json:"effect"`
	// Reason says why, in the effects table's words.
	Reason string `json:"reason,omitempty"`

	// Property is the provider's property behind the field, which the import leaves as the cloud
	// has it when the difference is in place.
	Property string `json:"-"`
}

// Unknown is the effect of a difference no row of the effects table explains: it blocks.
const Unknown effects.Effect = "unknown"

// Blocks tells whether the difference keeps the resource from being adopted as it is.
func (d Disagreement) Blocks() bool { return d.Effect.Blocks() || d.Effect == Unknown }

// FieldDrift is a manifest field the cloud disagrees with, and both values (secrets "[secret]").
type FieldDrift struct {
	// Field is the manifest path, e.g. "spec.tags"; for a property no row of the effects table
	// sends, the resource type and the property.
	Field string `json:"field"`
	// Live is what the cloud has, Manifest what the manifest says; Recorded, where known, what
	// the stack's last up applied (the manifest it recorded).
	Live     any `json:"live"`
	Manifest any `json:"manifest"`
	Recorded any `json:"recorded,omitempty"`
	// Stays, when set, says why no up puts this drift back and what does: the manifest leaves
	// the field empty, and emptying it is a change the provider does not carry out (the effects
	// table's removal of the field, e.g. a DigitalOcean pool's labels: its API client leaves an
	// empty map out of the request).
	Stays string `json:"stays,omitempty"`

	// Property is the provider's property behind the field (Pulumi names); the operations read
	// it, reports leave it out.
	Property string `json:"-"`
}

// Orphan is a pool in the stack's cluster that carries a rotation mark of the stack and that the
// stack does not hold, nor a rotation under way: left behind by a rotation that stopped where no
// record could follow it (a pool made by a clusterplane older than the marks' record, a record
// removed by hand). It is billed, and no up or destroy of the stack would ever touch it.
type Orphan struct {
	ID, Name string
	// Delete is the command that deletes it (the cloud's own CLI).
	Delete string
}

func (o Orphan) String() string {
	return fmt.Sprintf("pool %s (id %s) carries this stack's rotation mark, but neither the stack nor a rotation under way "+
		"holds it: a stopped rotation left it, and it is billed; delete it with `%s`", o.Name, o.ID, o.Delete)
}

// PlannedStack is one stack's part of a plan.
type PlannedStack struct {
	// Stack is the stack's key, <project>/<stack>; File the manifest's file as given; Kind its kind.
	Stack string `json:"stack"`
	File  string `json:"file"`
	Kind  string `json:"kind"`
	// Digest is the manifest's digest (ManifestDigest): a manifest edited since differs.
	Digest string `json:"manifestDigest"`
	// LastUpdate is the stack's last update when the plan was made; nil when it had none (a
	// stack the plan creates).
	LastUpdate *PlannedUpdate `json:"lastUpdate"`
	// Summary is the engine's summary of the preview, for the reader ("1 update, 2 same").
	Summary string `json:"summary"`
	// Steps are what the engine would do, in its order: what up --plan does and nothing else.
	Steps []PlannedStep `json:"steps"`
	// RecordedOnly are the paths of the manifest's changes no step carries (Result.RecordedOnly):
	// reviewed with the steps, so held by the plan too.
	RecordedOnly []string `json:"recordedOnly,omitempty"`
	// Fields are a digest of each field the manifest sets, by its path (FieldDigests): what
	// lets a refusal name the fields edited since the review without the plan holding a value.
	// Absent in a plan of an older clusterplane, whose refusal names the manifest's digest.
	Fields map[string]string `json:"fieldDigests,omitempty"`
}

// PlannedUpdate identifies a stack's update in its history.
type PlannedUpdate struct {
	Version   int    `json:"version"`
	Operation string `json:"kind"`
	Result    string `json:"result"`
	Ended     string `json:"ended,omitempty"`
}

// PlannedStep is one resource's planned step: its URN, the engine's operation and the fields it
// changes, by name only (a secret field says that it changes, never its value).
type PlannedStep struct {
	URN    string   `json:"urn"`
	Op     string   `json:"op"`
	Fields []string `json:"fields,omitempty"`
}

// String says an update as a reader names it: "version 3 (update succeeded 2026-11-23T18:00:00Z)".
func (u *PlannedUpdate) String() string {
	if u == nil {
		return "no update"
	}
	s := u.Operation + " " + u.Result
	if u.Ended != "" {
		s += " " + u.Ended
	}
	// The file backend numbers no update (every one is version 0): only the time tells two apart,
	// so a version is said only when there is one.
	if u.Version == 0 {
		return s
	}
	return fmt.Sprintf("version %d (%s)", u.Version, s)
}

func (s PlannedStep) String() string {
	if len(s.Fields) == 0 {
		return s.Op + " " + ShortURN(s.URN)
	}
	return s.Op + " " + ShortURN(s.URN) + " (" + strings.Join(s.Fields, ", ") + ")"
}

// StackStatus is a target's stack as status reports it.
type StackStatus struct {
	// Stack is the stack's name as every clusterplane table and report prints it: <kind>/<stack>.
	Stack string `json:"stack"`
	// LastUpdate is the stack's latest update or destroy; nil for a stack without one.
	LastUpdate *stackstate.Update `json:"lastUpdate"`
	// Generation identifies the manifest now; ObservedGeneration the one the last successful up
	// deployed ("" when none did).
	Generation         string `json:"generation"`
	ObservedGeneration string `json:"observedGeneration"`
	// Conditions are Ready and Drifted, as Kubernetes conditions read.
	Conditions []Condition `json:"conditions"`
	// Outputs are the stack's outputs, secrets left out.
	Outputs map[string]any `json:"outputs"`
	// Recorded is the manifest as the stack last saw the cloud run it (fielddrift.Recorded): its
	// node counts and sizes are what the last up or refresh read, which the manifest may no
	// longer say. Nil when the stack holds nothing. Not in the report: Nodes and Cost say it.
	Recorded proto.Message `json:"-"`
	// Cloud, when status read the cloud (--drift: the fleet scan's list or a preview's read), is
	// Recorded with the node counts, sizes and autoscaling bounds as that read found them, which a
	// change in the console since the last up or refresh makes differ. Nil when the cloud was not
	// read. Not in the report: Nodes and Cost say it, RecordedNodes and RecordedCost the record's.
	Cloud proto.Message `json:"-"`
	// Nodes and Cost are the stack's node count ("2", "2–5" autoscaled) and monthly cost as the
	// cloud runs them where status read it (Cloud), else as the stack recorded them (Recorded),
	// empty when it holds nothing; ManifestNodes and ManifestCost the
	// manifest's. The report sets them (render.Report), where the prices are; a cost is nil
	// when not priced.
	Nodes         string         `json:"nodes,omitempty"`
	ManifestNodes string         `json:"manifestNodes,omitempty"`
	Cost          *cost.Estimate `json:"cost,omitempty"`
	ManifestCost  *cost.Estimate `json:"manifestCost,omitempty"`
	// RecordedNodes and RecordedCost, when status read the cloud (Cloud) and it differs from the
	// record, are the record's figures: Nodes and Cost are then the cloud's.
	RecordedNodes string         `json:"recordedNodes,omitempty"`
	RecordedCost  *cost.Estimate `json:"recordedCost,omitempty"`
}

// Condition is one aspect of a stack's status.
type Condition struct {
	// Type is Ready or Drifted; Status True, False or Unknown; Reason one word (the constants of
	// Reason); Message the rest.
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  Reason `json:"reason"`
	Message string `json:"message"`
}

// OutputNames are the status's outputs' names, sorted: the order to show them in.
func (s *StackStatus) OutputNames() []string {
	names := make([]string, 0, len(s.Outputs))
	for name := range s.Outputs {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Condition returns the condition of type typ.
func (s *StackStatus) Condition(typ string) Condition {
	for _, c := range s.Conditions {
		if c.Type == typ {
			return c
		}
	}
	return Condition{Type: typ, Status: "Unknown"}
}

// LeftBehindError is a failed create that left what it was creating in the cloud: the stack
// does not hold it, the next up refuses to create another (ExistingError).
type LeftBehindError struct {
	Cause error
	File  string
	Live  []kinds.Live
}

func (e *LeftBehindError) Unwrap() error { return e.Cause }

func (e *LeftBehindError) Error() string {
	return e.Cause.Error() + ". The failed create left " + stackstate.DescribeLive(e.Live) + " in the cloud, which the stack does not " +
		"hold. " + AdoptAdvice(e.File, e.Live)
}

// AdoptAdvice says how to take the resource over, and what to do with the others of one name.
func AdoptAdvice(file string, live []kinds.Live) string {
	if len(live) == 0 {
		return ""
	}
	advice := "Take it over with `clusterplane adopt " + file + " --id " + live[0].ID + "`"
	if len(live) > 1 {
		advice = "Take one over with `clusterplane adopt " + file + " --id ID` (e.g. --id " + live[0].ID +
			") and delete the others in the cloud"
	}
	return advice + ", or delete it in the cloud, then run up again"
}

// ShortURN is a URN's type and name, as reports name resources.
func ShortURN(urn string) string {
	parts := strings.Split(urn, "::")
	if len(parts) < 4 {
		return urn
	}
	types := strings.Split(parts[2], "$")
	return types[len(types)-1] + " " + parts[3]
}

// NotReady tells whether a stack's Ready condition says its last update failed (or was
// interrupted) or that it is not at its manifest's generation, or (status --drift) its Drifted
// condition says the cloud differs. A stack whose reference is gone or that was destroyed on
// purpose is reported, not failed on (reportedOnly); any other Ready=False is failed on, so that
// a reason added later stops a script until it is named here.
func (st *StackStatus) NotReady() bool {
	for _, c := range st.Conditions {
		switch {
		case c.Type == "Drifted" && c.Status == "True":
			// A script gating on status --drift must not read drift as fine.
			return true
		case c.Type != "Ready" || c.Status == "True":
		case !reportedOnly[c.Reason]:
			return true
		}
	}
	return false
}

// CannotTell tells whether status --drift could not compare a stack's cloud (its preview
// failed): a script gating on status must not read that as in sync.
func (st *StackStatus) CannotTell() bool {
	for _, c := range st.Conditions {
		if c.Type == "Drifted" && c.Status == "Unknown" && c.Reason == PreviewFailed {
			return true
		}
	}
	return false
}
