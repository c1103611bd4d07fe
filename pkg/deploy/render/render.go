// Package render writes what the deploy pipeline reports (runreport.Report, outcome.Outcome) for
// people: the table of stacks and their counts, each change's fields old → new, the monthly
// costs, a pull request's Markdown comment, drift, status, an adoption's differences and the plan
// shown before up or destroy asks. Every way in that shows a report to a person (the command, a
// bot commenting on pull requests) writes it the same way; none of it redacts, which the caller
// does over the whole text.
package render

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/fielddrift"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/rotationrun"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/pkg/errors"
)

// Changes lists, under the table, each stack's refused changes and the manifest fields behind its
// resource changes, with the old and the new value.
func Changes(w io.Writer, r runreport.Report) {
	for _, s := range r.Stacks {
		// Drift's own report lists what it found (Drift): only after an up is it a change's.
		still := s.Drift
		if r.Command == operation.Drift || r.Command == operation.Status {
			still = nil
		}
		if len(s.Refused) == 0 && !hasFields(s) && len(s.RecordedOnly) == 0 && !s.ProtectionOff && len(s.PutBack)+len(s.Sets)+len(still) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", s.File)
		if s.ProtectionOff {
			fmt.Fprintf(w, "  %s\n", runreport.ProtectionOffLine)
		}
		for _, c := range s.Refused {
			fmt.Fprintf(w, "  refused %s: %s: %s\n", c.Path, values(c.Old, c.New), c.Reason)
		}
		for _, c := range s.RecordedOnly {
			fmt.Fprintf(w, "  recorded only %s: %s: %s\n", c.Path, values(c.Old, c.New), c.Reason)
		}
		// An up's stack that did not deploy (not confirmed, refused, skipped) made none of these
		// changes: they are said as what an up would do, as preview says them.
		would, verb, preview := "", putBack(r.Command), r.Command == operation.Preview
		if r.Command == operation.Up && s.Outcome != outcome.Done {
			would, verb, preview = "would ", "would put back", true
		}
		for _, rc := range s.Resources {
			for _, f := range rc.Fields {
				if f.Changed {
					fmt.Fprintf(w, "  %s%s %s: %s%s\n", would, rc.Operation, f.Path, values(f.Old, f.New), unlike(rc.Operation, f.Effect))
				}
			}
		}
		setLines(w, preview, s.Sets)
		cloudLines(w, verb, s.PutBack, still)
	}
}

// setLines lists the fields the stack took over as the cloud had them, which an up sets to the
// manifest's values for the first time ("would set" in a preview): no change in the cloud.
func setLines(w io.Writer, preview bool, sets []outcome.FieldDrift) {
	for _, f := range sets {
		fmt.Fprintf(w, "  %s %s: %s (taken over as the cloud had it, not yet set by an up)\n", setVerb(preview),
			f.Field, values(f.Live, f.Manifest))
	}
}

// setVerb is what an up does to a field the stack took over as the cloud had it: it sets it to the
// manifest's value, or would in a preview.
func setVerb(preview bool) string {
	if preview {
		return "would set"
	}
	return "set"
}

// cloudLines lists what a read of the cloud found changed there: each field put back (verb: "put
// back", or "would put back" before an up), then each that still differs, with why.
func cloudLines(w io.Writer, verb string, putBack, still []outcome.FieldDrift) {
	for _, f := range putBack {
		fmt.Fprintf(w, "  %s %s: %s (changed in the cloud since the last up)\n", verb, f.Field, values(f.Live, f.Manifest))
	}
	for _, f := range still {
		fmt.Fprintf(w, "  still differs %s: the cloud has %s, the manifest %s\n    %s\n", f.Field, show(f.Live), show(f.Manifest), f.Stays)
	}
}

// drifted tells whether a field is one the stack's read of the cloud found changed there (listed
// on its own line, with both values).
func drifted(s runreport.StackReport, field string) bool {
	for _, fs := range [][]outcome.FieldDrift{s.PutBack, s.Sets, s.Drift} {
		if slices.ContainsFunc(fs, func(f outcome.FieldDrift) bool { return f.Field == field }) {
			return true
		}
	}
	return false
}

// putBack is what a command does to a field changed in the cloud: up puts it back, preview says
// that up would.
func putBack(command operation.Name) string {
	if command == operation.Preview {
		return "would put back"
	}
	return "put back"
}

// Costs lists each priced stack's monthly cost under the table, each line naming its stack: a file
// may hold several.
func Costs(w io.Writer, r runreport.Report) {
	for _, s := range r.Stacks {
		switch {
		case s.Cost == nil:
		case r.Command == operation.Up && s.Outcome != outcome.Done:
			// Not deployed: the cost did not change, and the preview before the question said what
			// it would have been.
			fmt.Fprintf(w, "%s (%s): monthly cost: unchanged, not deployed (up would have made it %s)\n", s.File, s.Stack, s.Cost)
		default:
			fmt.Fprintf(w, "%s (%s): monthly cost: %s\n", s.File, s.Stack, s.Cost)
		}
	}
}

// Cause says why a stack's operation failed or was refused, in the user's terms, with what
// to run for the faults a user can mend.
func Cause(err error, t deploytarget.Target) string {
	var pending *stackstate.PendingCreatesError
	var operations *stackstate.PendingOperationsError
	var refused *stackstate.RefusedError
	switch {
	case errors.As(err, &pending):
		return pending.Advice(t.File)
	case errors.As(err, &operations):
		// `pulumi refresh` would need a Pulumi.yaml of the project: clusterplane's programs are inline.
		return operations.Error() + ": run `clusterplane refresh " + t.File + "` to reconcile them with the cloud, then run this again"
	case errors.As(err, &refused):
		var lines []string
		for _, c := range refused.Changes {
			lines = append(lines, fmt.Sprintf("%s: %s", c.Path, c.Reason))
		}
		return "refused, nothing was deployed:\n  " + strings.Join(lines, "\n  ")
	case errors.Is(err, stackstate.ErrNotDeployed):
		return "the stack " + t.Key() + " does not exist: this manifest was never deployed (run up)"
	}
	return err.Error()
}

// Status says each stack's conditions, generations, last update and non-secret outputs.
func Status(w io.Writer, outcomes []outcome.Outcome) {
	for _, o := range outcomes {
		st := o.Report
		if st == nil {
			fmt.Fprintf(w, "%s\t%s\t%s\n", o.Target.File, o.Target.Key(), o.Reason)
			continue
		}
		fmt.Fprintf(w, "%s\t%s\n", o.Target.File, st.Stack)
		for _, c := range st.Conditions {
			fmt.Fprintf(w, "  %s=%s\t%s: %s\n", c.Type, c.Status, c.Reason, c.Message)
		}
		observed := st.ObservedGeneration
		if observed == "" {
			observed = "none"
		}
		fmt.Fprintf(w, "  generation %s, observed %s\n", st.Generation, observed)
		if st.LastUpdate != nil {
			fmt.Fprintf(w, "  last %s: %s %s\n", st.LastUpdate.Operation, st.LastUpdate.Result, st.LastUpdate.Ended)
		}
		for _, name := range st.OutputNames() {
			fmt.Fprintf(w, "  %s: %v\n", name, st.Outputs[name])
		}
	}
}

// Kubeconfig writes the kubeconfig of each stack that gave one, as it is: the user's data.
func Kubeconfig(w io.Writer, outcomes []outcome.Outcome) {
	for _, o := range outcomes {
		if o.Status == outcome.Done {
			_, _ = w.Write(o.Kubeconfig)
		}
	}
}

// Adopt says what each adoption did, or each difference that blocked it, and what the next up
// changes in place.
func Adopt(w io.Writer, outcomes []outcome.Outcome) {
	for _, o := range outcomes {
		switch {
		case len(o.Disagreements) > 0:
			fmt.Fprintf(w, "%s: %s; nothing was changed\n", o.Target.File, o.Reason)
			for _, d := range o.Disagreements {
				fmt.Fprintf(w, "  %s: manifest %s, live %s (%s)\n", d.Field, show(d.Manifest), show(d.Live), d.Effect)
				if d.Effect == effects.Refused && d.Reason != "" {
					// A refusal says what to set instead, which its effect alone does not.
					fmt.Fprintf(w, "    %s\n", d.Reason)
				}
			}
			if len(o.InPlace) > 0 {
				fmt.Fprintln(w, "  and, once adopted, the next `up` changes in place:")
				inPlace(w, o.InPlace)
			}
		case o.Status == outcome.Done:
			fmt.Fprintf(w, "%s: %s\n", o.Target.File, o.Reason)
			if len(o.InPlace) > 0 {
				fmt.Fprintln(w, "  the next `up` changes in place:")
				inPlace(w, o.InPlace)
			}
		}
	}
}

// UpPlan is what an up would do to one stack, as preview reports it: each resource change and
// the manifest fields behind it, old → new, shown before the question.
func UpPlan(t deploytarget.Target, preview stackstate.Result, prices func(cloud string) cost.Prices) string {
	// What the preview found changed in the cloud is what up puts back, and what it costs.
	outcomes := []outcome.Outcome{fielddrift.Previewed(t, preview)}
	r := runreport.NewReport(operation.Preview, outcomes)
	r.Price(outcomes, prices)
	var b strings.Builder
	s := r.Stacks[0]
	fmt.Fprintf(&b, "\n%s (%s) would %s:\n", t.File, t.Key(), preview.Changed())
	if s.ProtectionOff {
		fmt.Fprintf(&b, "  %s\n", runreport.ProtectionOffLine)
	}
	// A replacement is asked only when the run named it (--allow-replace); it stands on a line of
	// its own so that a yes is never given to it unseen. A pool up rotates instead is no
	// replacement: the rotation's question says the rotation.
	if len(rotationrun.RotatedInstead(t, preview)) == 0 {
		for _, r := range preview.Replaced() {
			fmt.Fprintf(&b, "  REPLACES %s: deleted with its nodes and their pods, and created anew\n", r)
		}
	}
	for _, rc := range s.Resources {
		fmt.Fprintf(&b, "  %s %s %s\n", rc.Operation, rc.Type, rc.Name)
		// The fields whose values the manifest changes, old → new; only when it changed none
		// (the cloud differs from it) the fields the step is sent from.
		changedAny := slices.ContainsFunc(rc.Fields, func(f runreport.FieldEffect) bool { return f.Changed })
		for _, f := range rc.Fields {
			if f.Changed {
				fmt.Fprintf(&b, "    %s: %s%s\n", f.Path, values(f.Old, f.New), unlike(rc.Operation, f.Effect))
			} else if !changedAny && !drifted(s, f.Path) {
				fmt.Fprintf(&b, "    %s (%s: the cloud differs from the manifest)\n", f.Path, f.Effect)
			}
		}
	}
	for _, c := range s.RecordedOnly {
		fmt.Fprintf(&b, "  recorded only %s: %s: %s\n", c.Path, values(c.Old, c.New), c.Reason)
	}
	setLines(&b, true, s.Sets)
	cloudLines(&b, putBack(operation.Preview), s.PutBack, s.Drift)
	// The cost is part of what is asked: an answer should not be given before it is seen.
	if c := r.Stacks[0].Cost; c != nil {
		fmt.Fprintf(&b, "  monthly cost: %s\n", c)
	}
	return b.String()
}

// DestroyPlan lists what a destroy would delete from one stack, shown before the question.
func DestroyPlan(t deploytarget.Target, resources []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s (%s) would delete:\n", t.File, t.Key())
	for _, r := range resources {
		fmt.Fprintf(&b, "  %s\n", r)
	}
	return b.String()
}

// inPlace lists an adoption's in-place differences.
func inPlace(w io.Writer, found []outcome.Disagreement) {
	for _, d := range found {
		// What up sends is the manifest's value with what clusterplane derives from it (its own
		// tags), which the file does not hold: not called the manifest's.
		fmt.Fprintf(w, "    %s: the cloud has %s, up sends %s\n", d.Field, show(d.Live), show(d.Manifest))
	}
}

// outcomeText says a stack's outcome, its reason and, for what failed or blocked without a list of
// refused changes, the cause, each word once: a reason that begins with the outcome's word
// ("failed: clusterplane panicked") gives what follows it, and so does a cause that begins with
// the reason ("refused: still referenced …").
func outcomeText(command operation.Name, s runreport.StackReport) string {
	reason := s.Reason
	if s.Says == outcome.SaysFirst && s.Outcome != outcome.Done {
		// A done stack's reason begins with its row's word ("destroyed"), not with "done".
		reason = s.Rest
	}
	return joinSaid(": ", outcomeWord(command, s.Outcome), reason, cause(s))
}

// cause is what a stack's error adds to its reason: what follows the reason where the error
// begins with it, and nothing where the error is the reason, where the refused changes are listed
// field by field under the table, or for an interrupt, which is its own cause.
func cause(s runreport.StackReport) string {
	switch {
	case len(s.Refused) > 0 || s.Outcome == outcome.Cancelled || s.ErrSays == outcome.SaysItself:
		return ""
	case s.ErrSays == outcome.SaysFirst:
		return s.ErrRest
	}
	return s.Error
}

// joinSaid joins with sep the parts that say something, each without the spaces around it.
func joinSaid(sep string, parts ...string) string {
	var said []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			said = append(said, p)
		}
	}
	return strings.Join(said, sep)
}

// outcomeWord is how the table says an outcome: a preview that went through "previewed", since
// "done: 4 create" read as if the clusters were made.
func outcomeWord(command operation.Name, o outcome.Status) string {
	if o == outcome.Done && command == operation.Preview {
		return "previewed"
	}
	return string(o)
}

// oneLine is text on one line: the lines of a cause (one per refused field) joined by "; ".
func oneLine(text string) string {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}

// unlike is " (effect)" when a field's effect differs from the operation on its resource (a
// replace brought by a field the effects table calls a refusal, say), else "": "update
// spec.tags: [] → [a]", not "… (update)" again.
func unlike(operation string, effect effects.Effect) string {
	if string(effect) == operation {
		return ""
	}
	return " (" + string(effect) + ")"
}

// hasFields tells whether a stack's resource changes name a manifest field that changed.
func hasFields(s runreport.StackReport) bool {
	for _, rc := range s.Resources {
		for _, f := range rc.Fields {
			if f.Changed {
				return true
			}
		}
	}
	return false
}

// values shows a change as old → new; a secret field shows only that it changed.
func values(old, new any) string {
	if old == diff.Secret || new == diff.Secret {
		return "(secret, changed)"
	}
	return shown(old) + " → " + shown(new)
}

// shown is a value as JSON, "(unset)" when there is none.
func shown(v any) string {
	if v == nil {
		return "(unset)"
	}
	return show(v)
}

// resourceLines writes each resource change as a Markdown list item, its fields below it.
func resourceLines(b *strings.Builder, resources []runreport.ResourceChange) {
	for _, rc := range resources {
		fmt.Fprintf(b, "- **%s** `%s` %s\n", rc.Operation, rc.Type, rc.Name)
		for _, f := range rc.Fields {
			if f.Changed {
				fmt.Fprintf(b, "  - `%s`: %s (%s): %s\n", f.Path, codeValues(f.Old, f.New), f.Effect, f.Reason)
			} else {
				fmt.Fprintf(b, "  - `%s` (%s): %s\n", f.Path, f.Effect, f.Reason)
			}
		}
		if len(rc.Fields) == 0 && len(rc.Properties) > 0 {
			fmt.Fprintf(b, "  - properties: %s\n", strings.Join(rc.Properties, ", "))
		}
	}
}

// codeValues is values in Markdown: each value as code.
func codeValues(old, new any) string {
	if old == diff.Secret || new == diff.Secret {
		return "(secret, changed)"
	}
	return "`" + shown(old) + "` → `" + shown(new) + "`"
}

// cell is s fit for a Markdown table cell: one line, no pipes.
func cell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", "\\|")
}

// show is a value as people read it in a sentence.
func show(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// policyLines writes a stack's broken rules as Markdown list items, denials first as the file
// orders them: the rule, where the manifest breaks it, and the rule's message.
func policyLines(b *strings.Builder, results []policy.Result) {
	for _, denied := range []bool{true, false} {
		for _, r := range results {
			if r.Denied() != denied {
				continue
			}
			what := "**policy warning**"
			if denied {
				what = "**denied by policy**"
			}
			at := r.File
			if r.Line > 0 {
				at = fmt.Sprintf("%s:%d", r.File, r.Line)
			}
			if r.Field != "" {
				at = "`" + r.Field + "` (" + at + ")"
			}
			fmt.Fprintf(b, "- %s `%s` (%s) at %s: %s\n", what, r.Rule, r.Policy, at, cell(r.Message))
			if r.Error != "" {
				fmt.Fprintf(b, "  - the rule could not be evaluated: %s\n", cell(r.Error))
			}
		}
	}
}
