package runreport

import (
	_ "embed"
	"maps"
	"slices"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
	"github.com/clusterplane/clusterplane/pkg/deploy/fielddrift"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/rotationrun"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/providers"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"

	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// ReportVersion is the apiVersion of Report: its shape changes only with a new version. The JSON
// Schema of each version is schemas/report.<version>.schema.json.
const ReportVersion = "clusterplane.dev/report/v1"

// Report is what one command did to every stack, as data for machines (CI annotations, pull
// request comments): the outcome of each stack, each resource change with the manifest fields
// behind it, and what the operation found. It never holds a secret: values the engine marks
// secret read "[secret]", and resource changes name properties, not values.
type Report struct {
	APIVersion string `json:"apiVersion"`
	// Command is the command that ran: preview, up, refresh, drift, status, destroy, adopt.
	Command operation.Name `json:"command"`
	// Summary counts the stacks by outcome.
	Summary map[outcome.Status]int `json:"summary"`
	Stacks  []StackReport          `json:"stacks"`
}

// StackReport is one stack's part of a report.
type StackReport struct {
	File  string `json:"file"`
	Kind  string `json:"kind"`
	Stack string `json:"stack"`
	// Outcome is done, blocked, failed, skipped or cancelled; Reason says it in a few words.
	Outcome outcome.Status `json:"outcome"`
	Reason  string         `json:"reason"`
	// Error says what failed or blocked, without secrets; empty when nothing did.
	Error string `json:"error,omitempty"`
	// BlockedBy is the stack whose failure skipped this one.
	BlockedBy string  `json:"blockedBy,omitempty"`
	Seconds   float64 `json:"seconds"`
	// NotRun: done without the engine, on purpose (the fleet scan found the stack unchanged, or
	// --changed-since left it out).
	NotRun bool `json:"notRun,omitempty"`
	// Verdict is the outcome's (outcome.Verdict), which the text's word is read from; not in the
	// JSON, whose reason and notRun say it.
	Verdict outcome.Verdict `json:"-"`
	// Says and Rest are the outcome's: how the reason says the row's word, and what it says
	// after it. Not in the JSON, whose reason says them.
	Says outcome.Says `json:"-"`
	Rest string       `json:"-"`
	// ErrSays and ErrRest are the outcome's: how the error's text says the reason, and what it
	// says after it. Not in the JSON, whose error is the text whole.
	ErrSays outcome.Says `json:"-"`
	ErrRest string       `json:"-"`
	// Changes counts the engine's steps by operation; Resources are the steps that change
	// something.
	Changes   map[string]int   `json:"changes,omitempty"`
	Resources []ResourceChange `json:"resources,omitempty"`
	// Refused are the manifest changes refused before the engine ran, as diff names them.
	Refused []diff.Change `json:"refused,omitempty"`
	// RecordedOnly are the manifest's changes no engine step carries (Result.RecordedOnly).
	RecordedOnly []diff.Change `json:"recordedOnly,omitempty"`
	// ProtectionOff: the manifest turns the cluster's deletion protection off (ProtectionOffLine).
	ProtectionOff bool `json:"protectionOff,omitempty"`
	// Rotations are the pool rotations the manifest asks for, as diff plans them.
	Rotations []rotation.Rotation `json:"rotations,omitempty"`
	// Drift is what drift found; after an up, what the cloud still differs in that no up puts
	// back.
	Drift []outcome.FieldDrift `json:"drift,omitempty"`
	// Pending is what drift found the manifest changed since the last up (or an adoption left),
	// which the next up applies: not drift.
	Pending []outcome.FieldDrift `json:"pending,omitempty"`
	// PutBack are the fields an up found changed in the cloud and set back to the manifest's
	// values, with what the cloud had.
	PutBack []outcome.FieldDrift `json:"putBack,omitempty"`
	// Sets are the fields the stack took over as the cloud had them (an adoption's in-place
	// differences) that an up sets to the manifest's values for the first time: no change in the
	// cloud.
	Sets          []outcome.FieldDrift   `json:"sets,omitempty"`
	Status        *outcome.StackStatus   `json:"status,omitempty"`
	Disagreements []outcome.Disagreement `json:"disagreements,omitempty"`
	// InPlace are an adoption's differences that the next up changes in place.
	InPlace []outcome.Disagreement `json:"inPlace,omitempty"`
	// Readied is what an adoption changed in the cloud to ready its import (a pool tagged).
	Readied *kinds.Readied `json:"readied,omitempty"`
	// Unmanaged are the clusters or node pools of the manifest's name that the cloud holds and
	// the stack does not: what a failed create left, or what up refused to create again.
	Unmanaged []kinds.Live `json:"unmanaged,omitempty"`
	// Cost is the manifest's monthly cost and the change's delta from what the stack deployed
	// (Price); nil when it was not priced.
	Cost *cost.Delta `json:"cost,omitempty"`
	// Policy are the rules of the policy (--policy) the manifest breaks: denials, which kept
	// every stack from running, and warnings.
	Policy []policy.Result `json:"policy,omitempty"`
}

// ResourceChange is one resource the operation changes, or would.
type ResourceChange struct {
	Type string `json:"type"`
	Name string `json:"name"`
	// Operation is the engine's: create, update, replace, delete, import, ...
	Operation string `json:"operation"`
	// Properties are the properties it changes; Fields the manifest fields they are sent from
	// (pkg/change/effects), as diff and drift name them, with the reason the effects table gives.
	Properties []string      `json:"properties,omitempty"`
	Fields     []FieldEffect `json:"fields,omitempty"`
}

// FieldEffect is a manifest field a change comes from, and what changing it does.
type FieldEffect struct {
	Path   string         `json:"path"`
	Effect effects.Effect `json:"effect,omitempty"`
	Reason string         `json:"reason,omitempty"`
	// Changed tells that the manifest changed the field since the stack's last update; Old and
	// New are then its values as diff shows them (null when unset, "[secret]" for a secret).
	Changed bool `json:"changed,omitempty"`
	Old     any  `json:"old,omitempty"`
	New     any  `json:"new,omitempty"`
}

// NewReport is the report of command's outcomes.
func NewReport(command operation.Name, outcomes []outcome.Outcome) Report {
	r := Report{APIVersion: ReportVersion, Command: command, Summary: map[outcome.Status]int{}, Stacks: []StackReport{}}
	for _, o := range outcomes {
		r.Summary[o.Status]++
		s := StackReport{File: o.Target.File, Kind: o.Target.Name, Stack: o.Target.Key(), Outcome: o.Status,
			Reason: o.Reason, BlockedBy: o.BlockedBy, Seconds: o.Took.Seconds(), Drift: o.Drift, Pending: o.Pending, PutBack: o.PutBack, Sets: o.Sets, Status: o.Report,
			Disagreements: o.Disagreements, InPlace: o.InPlace, Readied: o.Readied, Unmanaged: o.Unmanaged, Policy: o.Policy, NotRun: o.NotRun, Verdict: o.Verdict,
			Says: o.Says, Rest: o.Rest, ErrSays: o.ErrSays, ErrRest: o.ErrRest}
		if o.Err != nil {
			s.Error = o.Err.Error()
		}
		var refused *stackstate.RefusedError
		if errors.As(o.Err, &refused) {
			s.Refused = refused.Changes
		}
		var rotation *rotationrun.RotationError
		if errors.As(o.Err, &rotation) {
			s.Rotations = rotation.Rotations
		}
		s.Rotations = append(s.Rotations, o.Rotations...)
		if o.Result != nil {
			s.Changes = o.Result.Changes
			s.RecordedOnly = o.Result.RecordedOnly
			if changed := fielddrift.ChangedPaths(o.Target, o.Result.Previous); changed != nil {
				s.ProtectionOff = ProtectionOff([]diff.Change{changed[effects.ProtectionPath]})
			}
			s.Resources = resourceChanges(o.Target.Effects, o.Result.Steps, fielddrift.ChangedPaths(o.Target, o.Result.Previous))
			if len(o.Rotations) > 0 {
				s.Resources, s.Changes = Rotated(s.Resources, s.Changes)
			}
		}
		r.Stacks = append(r.Stacks, s)
	}
	return r
}

// Price adds each stack's monthly cost to the report: its manifest's, and the delta from the
// manifest the stack last deployed (from nothing when it deployed none), with the prices of its
// cloud that prices gives.
func (r *Report) Price(outcomes []outcome.Outcome, prices func(cloud string) cost.Prices) {
	for i, o := range outcomes {
		// Without the engine's result the deployed manifest is unknown: no delta to tell.
		if o.Target.Input == nil || o.Result == nil || i >= len(r.Stacks) {
			continue
		}
		if o.Status == outcome.Cancelled || o.Status == outcome.Failed {
			// What an operation that did not end would have cost is no change to report.
			continue
		}
		cloud, ok := cloudlist.OfInput(o.Target.Input)
		if !ok {
			continue
		}
		old, _ := o.Target.DeployedInput(stackstate.OutputsOf(o.Result.Previous))
		if cloudHad := append(slices.Clip(o.PutBack), o.Sets...); old != nil && len(cloudHad) > 0 {
			// What the stack held before the up is what the cloud had, not what it recorded: the
			// change's cost is from the drifted cloud (6 nodes) to the manifest (4).
			old = fielddrift.WithValues(old, cloudHad)
		}
		if old != nil && len(r.Stacks[i].RecordedOnly) > 0 {
			// A change that is only recorded sends the cloud nothing: the cloud has the new value
			// already (a pool resized by hand, then the manifest set to that size), or never gets
			// it, so its cost changes nothing (not the recorded 2 nodes → 3).
			old = fielddrift.WithValues(old, cloudKept(r.Stacks[i].RecordedOnly))
		}
		p := prices(string(cloud.ID()))
		d := cost.Compare(old, o.Target.Input, p)
		if old == nil && o.Result.Changes[string(apitype.OpCreate)] == 0 {
			// The stack holds resources but recorded no manifest (an up interrupted before its
			// outputs): a delta from nothing would read as a new charge, so only the manifest's
			// cost is said.
			d = cost.Unrecorded(o.Target.Input, p)
		}
		r.Stacks[i].Cost = &d
		rotation.PriceRotations(r.Stacks[i].Rotations, p)
	}
}

// cloudKept are the fields of changes that are only recorded, each at the manifest's new value:
// what the cloud has, as far as the change's cost goes.
func cloudKept(recordedOnly []diff.Change) []outcome.FieldDrift {
	out := make([]outcome.FieldDrift, 0, len(recordedOnly))
	for _, c := range recordedOnly {
		out = append(out, outcome.FieldDrift{Field: c.Path, Live: c.New, Manifest: c.New})
	}
	return out
}

// internal tells a step the engine does not count in its summary: a default provider's (the
// pulumi provider a pool's stack reference reads through, made without a word of the program) or
// the removal of a pending replacement. Pulumi's engine counts neither (pkg/engine/update.go,
// isInternalStep, as read at v3.145.0; the v3.259.0 engine .engine runs counted a pool's first
// preview "create 4" over these 5 steps), so a row for one made up's question say "would create
// 4" over 5 rows.
func internal(step stackstate.Step) bool {
	return step.Action == string(apitype.OpRemovePendingReplace) || providers.IsDefaultProvider(resource.URN(step.URN))
}

// resourceChanges are the steps that change something, with the manifest fields behind them:
// of the fields a property is sent from, those that changed, when the manifest did (a property
// such as tags is sent from several), else all of them (the cloud changed, not the manifest), the
// spec's first (specFirst). The engine's internal steps are left out, as its counts leave them.
func resourceChanges(table *effects.Table, steps []stackstate.Step, changed map[string]diff.Change) []ResourceChange {
	var out []ResourceChange
	for _, step := range steps {
		if step.IsAction(apitype.OpSame, apitype.OpRead) || internal(step) {
			continue
		}
		rc := ResourceChange{Type: step.Type, Name: step.Name, Operation: step.Action, Properties: fielddrift.PropertyPaths(step.Paths)}
		seen := map[string]bool{}
		for _, p := range rc.Properties {
			if table == nil {
				break
			}
			fields := table.Fields(step.Type, p)
			var moved []string
			for _, field := range fields {
				if fielddrift.Among(field, changed) {
					moved = append(moved, field)
				}
			}
			if len(moved) > 0 {
				fields = moved
			} else {
				fields = fielddrift.SpecFirst(fields)
			}
			for _, field := range fields {
				if seen[field] {
					continue
				}
				seen[field] = true
				fe := FieldEffect{Path: field}
				if row, ok := table.Lookup(field); ok {
					fe.Effect, fe.Reason = row.Effect, row.Reason
				}
				if c, ok := changed[field]; ok {
					// diff decided this very change: its effect and reason are the exact ones
					// (a replacement a row only may cause), and its values are what a reviewer reads.
					fe.Changed, fe.Old, fe.New, fe.Effect, fe.Reason = true, c.Old, c.New, c.Effect, c.Reason
				}
				rc.Fields = append(rc.Fields, fe)
			}
		}
		out = append(out, rc)
	}
	return out
}

// Rotated turns the engine's replacement of a pool that up rotates instead into one "rotate"
// change, in the resources and in the counts by operation: the engine plans replace and
// create-replacement (or delete-replaced, which names no field) steps, which read as the pool
// replaced at once, nodes and pods gone, when up creates a pool beside it and drains the old one
// first. changes is left as it is; the counts returned are a copy.
func Rotated(resources []ResourceChange, changes map[string]int) ([]ResourceChange, map[string]int) {
	rotates := map[string]bool{}
	for _, rc := range resources {
		if replaceStep(rc.Operation) && rotatesOnly(rc) {
			rotates[rc.Type+"::"+rc.Name] = true
		}
	}
	var out []ResourceChange
	seen := map[string]bool{}
	for _, rc := range resources {
		key := rc.Type + "::" + rc.Name
		if replaceStep(rc.Operation) && rotates[key] {
			if seen[key] {
				continue
			}
			seen[key] = true
			if !rotatesOnly(rc) {
				// The step that names the fields tells the change; a delete-replaced names none.
				for _, other := range resources {
					if other.Type+"::"+other.Name == key && replaceStep(other.Operation) && rotatesOnly(other) {
						rc = other
						break
					}
				}
			}
			rc.Operation = "rotate"
		}
		out = append(out, rc)
	}
	counts := maps.Clone(changes)
	if n := len(rotates); n > 0 && counts != nil {
		counts[string(apitype.OpReplace)] -= min(n, counts[string(apitype.OpReplace)])
		if counts[string(apitype.OpReplace)] == 0 {
			delete(counts, string(apitype.OpReplace))
		}
		counts["rotate"] += n
	}
	return out, counts
}

// replaceStep tells whether op is one of the steps of the engine's replacement.
func replaceStep(op string) bool {
	switch apitype.OpType(op) {
	case apitype.OpReplace, apitype.OpCreateReplacement, apitype.OpDeleteReplaced:
		return true
	}
	return false
}

// rotatesOnly tells whether every field of rc that the manifest changed is one a rotation carries.
func rotatesOnly(rc ResourceChange) bool {
	changed := false
	for _, f := range rc.Fields {
		if f.Changed && f.Effect != effects.Rotate {
			return false
		}
		changed = changed || f.Changed
	}
	return changed
}

// ReportSchema is the JSON Schema of Report at ReportVersion; make protos writes it to
// schemas/report.v1.schema.json for tools outside Go.
//
//go:embed report.schema.json
var ReportSchema []byte

// ExitCode is the exit code the outcomes of a run call for (package exitcode's table): the
// worst of them, an interrupted run's whatever else happened.
func ExitCode(outcomes []outcome.Outcome) int {
	code := exitcode.OK
	for _, o := range outcomes {
		switch o.Status {
		case outcome.Cancelled:
			return exitcode.Interrupted
		case outcome.Blocked, outcome.Drifted:
			code = max(code, exitcode.Blocked)
		case outcome.Failed, outcome.Skipped:
			code = max(code, exitcode.Invalid)
		}
		if o.Report != nil && o.Report.CannotTell() {
			code = max(code, exitcode.Invalid)
		}
		if o.Report != nil && o.Report.NotReady() {
			code = max(code, exitcode.NotReady)
		}
	}
	return code
}

// PendingFails makes a drift outcome o that found no drift but pending changes Blocked when fail
// is set (drift --fail-on-pending), so that it exits 3 as drift does: a job that must see every
// merged change applied asks for it.
func PendingFails(o outcome.Outcome, fail bool) outcome.Outcome {
	if fail && o.Status == outcome.Done && len(o.Pending) > 0 {
		o.Status = outcome.Blocked
	}
	return o
}

// Command is the clusterplane command that runs an operation of the stack's history again.
func Command(operation string) string {
	if operation == "update" {
		return "up"
	}
	return operation
}
