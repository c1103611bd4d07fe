package render

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/clusterplane/clusterplane/pkg/deploy/fielddrift"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// The words a fleet's text output sorts its stacks by (docs/deploying.md, "What the words mean"),
// one word a stack, the same in its row and in the summary. Unchanged and not run are the two a
// stack that needs nothing gets: such a stack is counted, not listed.
const (
	// WouldChange: a preview found something an up would do (or put back).
	WouldChange = "would change"
	// Changed: the operation ran and changed the stack (up, refresh).
	Changed = "changed"
	// Unchanged: the stack is as its last up left it (manifest, clusterplane build and cloud),
	// found so by the fleet scan (then not run too) or by the engine, which had nothing to do.
	Unchanged = "unchanged"
	// NotRun: the engine did not run for the stack, on purpose, and nothing says it is unchanged
	// (--changed-since left it out; a pool whose cluster is not deployed yet, in a preview).
	NotRun = "not run"
	// NotDeployed: the stack holds nothing (drift: up would deploy it; destroy: nothing to delete).
	NotDeployed = "not deployed"
	// Destroyed and Adopted: what destroy and adopt did.
	Destroyed = "destroyed"
	Adopted   = "adopted"
	// Pending: drift found the cloud as the last up left it, and the manifest changed since (or
	// an adoption left fields for the next up): the next up applies them; no drift.
	Pending = "pending"
)

// results are the words in the order the summary counts them: what did or would do something,
// what differs, what needs nothing, what went wrong.
var results = []string{WouldChange, Changed, Destroyed, Adopted, string(outcome.Drifted), Pending, NotDeployed, Unchanged, NotRun,
	string(outcome.Blocked), string(outcome.Failed), string(outcome.Skipped), string(outcome.Cancelled)}

// FleetOptions steer Fleet.
type FleetOptions struct {
	// All lists every stack, those that need nothing too (--all, -v; always for one stack).
	All bool
	// Detail writes each stack's changes field by field, old → new, and its cost line under the
	// summary (one stack, -v).
	Detail bool
	// Tail gives the last lines of a stack's engine progress that were not shown as it ran: they
	// are shown under the row of a stack that failed. Nil for none.
	Tail func(stack string) []string
	// Took is how long the run took; 0 leaves the time out.
	Took time.Duration
}

// Fleet writes a run's report as text: a row for each stack that did or would do something,
// differs or failed (every stack with All), a failed stack's last engine lines under its row,
// then one summary line: the stacks counted by result, the resources changed, the monthly cost
// of the whole fleet before → after, and the time. Stacks that need nothing are counted in the
// summary, not listed: 1,000 stacks of which 3 drifted print 5 lines.
func Fleet(w io.Writer, r runreport.Report, o FleetOptions) {
	var rows [][4]string
	var tails [][]string
	for _, s := range r.Stacks {
		if !o.All && !listed(r.Command, s) {
			continue
		}
		took := time.Duration(s.Seconds * float64(time.Second)).Round(time.Second).String()
		rows = append(rows, [4]string{s.File, s.Stack, took, rowText(r.Command, s)})
		var tail []string
		if o.Tail != nil && (s.Outcome == outcome.Failed || s.Outcome == outcome.Cancelled) {
			tail = o.Tail(s.Stack)
		}
		tails = append(tails, tail)
	}
	if len(rows) > 0 {
		writeRows(w, [4]string{"FILE", "STACK", "TIME", "RESULT"}, rows, tails)
	}
	fmt.Fprintln(w, FleetSummary(r, o.Took))
	if !o.Detail {
		return
	}
	if r.Command == operation.Drift {
		driftDetail(w, r)
		return
	}
	Changes(w, r)
	Costs(w, r)
}

// writeRows aligns the rows under the header, the last column as long as it is (a failure's cause
// runs on), each tail's lines indented under its row. tabwriter would align a block only as far
// as the first line without a tab: a tail between two rows would break the columns.
func writeRows(w io.Writer, header [4]string, rows [][4]string, tails [][]string) {
	var width [3]int
	for _, row := range append([][4]string{header}, rows...) {
		for i := range width {
			width[i] = max(width[i], len([]rune(row[i])))
		}
	}
	line := func(row [4]string) {
		var b strings.Builder
		for i := range width {
			b.WriteString(row[i] + strings.Repeat(" ", width[i]-len([]rune(row[i]))+2))
		}
		fmt.Fprintln(w, b.String()+row[3])
	}
	line(header)
	for i, row := range rows {
		line(row)
		for _, l := range tails[i] {
			fmt.Fprintln(w, "    | "+l)
		}
	}
}

// ResultOf is the word for what a command did to one stack (the constants above, or the outcome's
// own word: blocked, drifted, failed, skipped, cancelled), from the outcome's status, verdict and
// findings: never from its reason, whose words are the reader's.
func ResultOf(command operation.Name, s runreport.StackReport) string {
	switch {
	case s.Outcome != outcome.Done:
		return string(s.Outcome)
	case s.NotRun && s.Verdict == outcome.Unchanged:
		return Unchanged
	case s.Verdict == outcome.HoldsNothing:
		return NotDeployed
	case s.NotRun || s.Verdict == outcome.NotPreviewed:
		// Not run on purpose, or not previewed: a pool whose cluster is not deployed yet.
		return NotRun
	case command == operation.Destroy:
		return Destroyed
	case command == operation.Adopt:
		return Adopted
	case command == operation.Drift && len(s.Pending) > 0:
		return Pending
	case !needsSomething(s):
		return Unchanged
	case command == operation.Preview:
		return WouldChange
	}
	return Changed
}

// listed tells whether a stack gets a row by default: all but those that need nothing (unchanged,
// or left out on purpose).
func listed(command operation.Name, s runreport.StackReport) bool {
	switch ResultOf(command, s) {
	case Unchanged:
		return false
	case NotRun, NotDeployed:
		if command == operation.Drift {
			return true // a stack that holds nothing differs from its manifest: up would deploy it
		}
		// A destroy's has nothing to delete, and one left out on purpose needs nothing of this
		// run; a preview's pool whose cluster is not deployed yet is listed: up deploys it.
		return !s.NotRun && command != operation.Destroy
	}
	return true
}

// needsSomething tells whether a stack's operation found something to do or that differs: a
// resource step that changes something, a change only the state records, a field the cloud
// changed, a rotation, what no up puts back, clusters the stack does not hold, a change refused or
// made in place, what the provider and the manifest disagree on, a policy's word, a change of
// cost. The text's rows and the Markdown's table both ask it, so they list the same stacks.
func needsSomething(s runreport.StackReport) bool {
	if changing(s.Changes) || s.ProtectionOff {
		return true
	}
	if len(s.RecordedOnly)+len(s.PutBack)+len(s.Sets)+len(s.Drift)+len(s.Pending)+len(s.Rotations)+len(s.Unmanaged)+
		len(s.Refused)+len(s.Disagreements)+len(s.InPlace)+len(s.Policy) > 0 {
		return true
	}
	return s.Cost != nil && (s.Cost.Min != 0 || s.Cost.Max != 0)
}

// changing tells whether the engine's counts hold a step that changes something.
func changing(changes map[string]int) bool {
	for op, n := range changes {
		if n > 0 && !sameOp(op) {
			return true
		}
	}
	return false
}

// sameOp tells an engine operation that changes nothing.
func sameOp(op string) bool { return op == "same" || op == "read" || op == "refresh" }

// rowText is a stack's result in its row: the word, then the reason and the cause each once, the
// first fields it changes with their values (the fields that drifted, with both, in drift's), and
// the change of its monthly cost.
func rowText(command operation.Name, s runreport.StackReport) string {
	word := ResultOf(command, s)
	said := joinSaid(": ", s.Reason, cause(s))
	sep := ": "
	switch s.Says {
	case outcome.SaysFirst:
		said = joinSaid(": ", s.Rest, cause(s))
	case outcome.SaysItself:
		if word == Pending {
			// "no drift; pending: spec.nodeCount 2 → 3, not applied" says the word in a clause
			// that ends on a list of fields: the row's go on with it.
			sep = "; "
		}
		// The reason says the word in a sentence of its own ("unchanged since the last up
		// (...): not run", "not deployed (never, or destroyed)"): it goes where the word would.
		word, said = oneLine(said), ""
	}
	parts := []string{oneLine(said)}
	if command == operation.Drift {
		parts = append(parts, driftedValues(s.Drift))
	} else {
		parts = append(parts, changedValues(command, s))
	}
	parts = append(parts, rowCost(command, s))
	parts = slices.DeleteFunc(parts, func(p string) bool { return p == "" })
	if len(parts) == 0 {
		return word
	}
	return word + sep + strings.Join(parts, "; ")
}

// changedValues says the first three manifest fields a stack's resource changes come from, each
// old → new as the detail under the table says it, and how many more.
func changedValues(command operation.Name, s runreport.StackReport) string {
	would := ""
	if command == operation.Up && s.Outcome != outcome.Done {
		would = "would "
	}
	var parts []string
	for _, rc := range s.Resources {
		for _, f := range rc.Fields {
			if f.Changed {
				parts = append(parts, fmt.Sprintf("%s%s %s: %s%s", would, rc.Operation, f.Path, values(f.Old, f.New), unlike(rc.Operation, f.Effect)))
			}
		}
	}
	return firstThree(parts)
}

// firstThree joins the first three parts, saying how many more there are.
func firstThree(parts []string) string {
	if len(parts) > 3 {
		parts = append(parts[:3], fmt.Sprintf("and %d more (-v lists them)", len(parts)-3))
	}
	return strings.Join(parts, ", ")
}

// driftedValues says the first three fields that drifted with both values, and how many more.
func driftedValues(fields []outcome.FieldDrift) string {
	var parts []string
	for _, f := range fields {
		parts = append(parts, driftedValue(f))
	}
	return firstThree(parts)
}

// driftedValue says one drifted field with both values, as the rows say them: the cloud's against
// what the last up applied, where the manifest changed the field since, else the manifest's.
func driftedValue(f outcome.FieldDrift) string {
	if f.Recorded != nil {
		return fmt.Sprintf("%s (the cloud has %s, the last up applied %s)", f.Field, show(f.Live), show(f.Recorded))
	}
	return fmt.Sprintf("%s (the cloud has %s, the manifest %s)", f.Field, show(f.Live), show(f.Manifest))
}

// rowCost is the change of a stack's monthly cost, without the prices' citation (the summary's
// total is priced the same way): "" when unchanged or not priced. An up that did not deploy says
// what it would have cost.
func rowCost(command operation.Name, s runreport.StackReport) string {
	switch {
	case s.Cost == nil || s.Cost.Unchanged():
		return ""
	case command == operation.Up && s.Outcome != outcome.Done:
		return "monthly cost unchanged (up would have made it " + s.Cost.Short() + ")"
	}
	return "monthly cost " + s.Cost.Short()
}

// FleetSummary is the one line that ends a run's text: its stacks counted by result, the
// resources changed, the fleet's monthly cost before → after, and the time. A stack the engine
// did not run is never counted as previewed or done: "2 would change, 18 unchanged (18 not run)".
func FleetSummary(r runreport.Report, took time.Duration) string {
	count := map[string]int{}
	notRun := 0
	for _, s := range r.Stacks {
		word := ResultOf(r.Command, s)
		count[word]++
		if word == Unchanged && s.NotRun {
			notRun++
		}
	}
	var parts []string
	for _, word := range results {
		if n := count[word]; n > 0 {
			part := fmt.Sprintf("%d %s", n, word)
			if word == Unchanged && notRun > 0 {
				part += fmt.Sprintf(" (%d not run)", notRun)
			}
			parts = append(parts, part)
		}
	}
	if len(parts) == 0 {
		parts = []string{"none"}
	}
	line := "Stacks: " + strings.Join(parts, ", ") + ". Resources: " + resources(r) + "."
	if c := fleetCost(r); c != "" {
		line += " Monthly cost: " + c + "."
	}
	if took > 0 {
		line += " Time: " + roundTook(took) + "."
	}
	return line
}

// resources counts the resource steps of the stacks whose operation ran (a preview's or drift's
// findings, what up, refresh, destroy or adopt did), by operation: "3 to update" in a preview,
// "3 updated" after an up, as Pulumi says them.
func resources(r runreport.Report) string {
	total := map[string]int{}
	for _, s := range r.Stacks {
		ran := s.Outcome == outcome.Done || s.Outcome == outcome.Drifted
		if r.Command == operation.Preview || r.Command == operation.Drift {
			ran = ran || s.Outcome == outcome.Blocked
		}
		if !ran || s.NotRun {
			continue
		}
		for op, n := range s.Changes {
			// The steps of a replacement are counted once, as the engine's own summary does.
			if !sameOp(op) && op != "create-replacement" && op != "delete-replaced" {
				total[op] += n
			}
		}
	}
	if r.Command == operation.Adopt {
		// An adoption changes nothing in the cloud but what readied an import (what differs is
		// left for the next up): its creates are the stack's own records (the stack, the
		// component), not cloud resources.
		return adopted(total["import"], readied(r))
	}
	would := r.Command == operation.Preview || r.Command == operation.Drift
	var parts []string
	for _, op := range slices.Sorted(maps.Keys(total)) {
		if total[op] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", total[op], opWord(op, would)))
		}
	}
	unread := unreadStacks(r, would)
	switch {
	case len(parts) == 0 && unread != "":
		// Nothing counted, and stacks the run could not read: "none to change" would be a verdict
		// on stacks nobody looked at.
		return "not known for " + unread
	case unread != "":
		return strings.Join(parts, ", ") + "; not known for " + unread
	case len(parts) == 0 && would:
		return "none to change"
	case len(parts) == 0:
		return "none changed"
	}
	return strings.Join(parts, ", ")
}

// adopted is an adoption's count: what it did in the stacks' state, and in the cloud what
// readied the imports (readied), nothing else.
func adopted(imports int, readied string) string {
	state := "none imported"
	if imports > 0 {
		state = fmt.Sprintf("%d imported into the state", imports)
	}
	if readied == "" {
		return state + ", none changed in the cloud"
	}
	return state + "; " + readied + ", nothing else changed in the cloud"
}

// readied counts what the adoptions changed in the cloud to ready their imports, by thing and
// change ("1 pool tagged terraform:default-node-pool"); "" for nothing.
func readied(r runreport.Report) string {
	count := map[kinds.Readied]int{}
	for _, s := range r.Stacks {
		if s.Readied != nil && s.Readied.Change != "" {
			count[kinds.Readied{Thing: s.Readied.Thing, Change: s.Readied.Change}]++
		}
	}
	var parts []string
	for k, n := range count {
		thing := k.Thing
		if n > 1 {
			thing += "s"
		}
		parts = append(parts, fmt.Sprintf("%d %s %s", n, thing, k.Change))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

// unreadStacks counts the stacks whose resources the run cannot speak for, by result ("2
// failed, 1 skipped"): a failed or cancelled one (an up's may have changed some before it
// stopped), and in a preview or drift a skipped one too, which nothing read. An up's skipped
// stack changed nothing, which "none changed" says truly.
func unreadStacks(r runreport.Report, would bool) string {
	count := map[outcome.Status]int{}
	for _, s := range r.Stacks {
		if s.Outcome == outcome.Failed || s.Outcome == outcome.Cancelled || would && s.Outcome == outcome.Skipped {
			count[s.Outcome]++
		}
	}
	var parts []string
	for _, o := range []outcome.Status{outcome.Failed, outcome.Skipped, outcome.Cancelled} {
		if count[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[o], o))
		}
	}
	return strings.Join(parts, ", ")
}

// opWord is an operation as a count says it: "to update" before, "updated" after.
func opWord(op string, would bool) string {
	if would {
		return "to " + op
	}
	past := map[string]string{"create": "created", "update": "updated", "replace": "replaced", "delete": "deleted",
		"import": "imported", "rotate": "rotated", "discard": "discarded"}
	if p, ok := past[op]; ok {
		return p
	}
	return op
}

// fleetCost is the monthly cost of the priced stacks before the run and after it (a preview's:
// after an up), and the change: an up's stack that did not deploy stays at what it cost. Stacks
// not priced (failed, not run by --changed-since, not of a priced cloud) are said, not guessed;
// a size with no known price makes the total "not known".
func fleetCost(r runreport.Report) string {
	var before, after struct{ Min, Max float64 }
	priced, moved, unknown := 0, 0, map[string]bool{}
	for _, s := range r.Stacks {
		c := s.Cost
		if c == nil || c.OldNotKnown {
			continue
		}
		priced++
		before.Min, before.Max = before.Min+c.Old.Min, before.Max+c.Old.Max
		now := c.New
		if r.Command == operation.Up && s.Outcome != outcome.Done && s.Outcome != outcome.Drifted {
			now = c.Old
		}
		after.Min, after.Max = after.Min+now.Min, after.Max+now.Max
		if now.Min != c.Old.Min || now.Max != c.Old.Max {
			moved++
		}
		for _, size := range append(slices.Clone(c.Old.Unknown), c.New.Unknown...) {
			unknown[size] = true
		}
	}
	if priced == 0 {
		return ""
	}
	var notes []string
	if n := len(r.Stacks) - priced; n > 0 {
		notes = append(notes, stacks(n)+" not priced")
	}
	if len(unknown) > 0 {
		// A size with no price leaves the total unknown: a figure here (even "$0.00 → $0.00",
		// "unchanged") would be read as the fleet's cost, and a CI gate on it would pass a change
		// it cannot see. The priced stacks' part is said, named as a part.
		text := "not known (no known price for " + strings.Join(slices.Sorted(maps.Keys(unknown)), ", ") + ")"
		if before.Max > 0 || after.Max > 0 {
			text += fmt.Sprintf("; what is priced: %s → %s/month", usd(before.Min, before.Max, false), usd(after.Min, after.Max, false))
		}
		return strings.Join(append([]string{text}, notes...), ", ")
	}
	change := usd(min(after.Min-before.Min, after.Max-before.Max), max(after.Min-before.Min, after.Max-before.Max), true)
	switch {
	case before == after && moved > 0:
		// Rows that change cost beside an "unchanged" fleet read as a mistake: say they cancel.
		change = "no change in all: " + stacks(moved) + " up and down"
	case before == after:
		change = "unchanged"
	}
	text := fmt.Sprintf("%s → %s/month (%s)", usd(before.Min, before.Max, false), usd(after.Min, after.Max, false), change)
	if len(notes) > 0 {
		text += ", " + strings.Join(notes, ", ")
	}
	return text
}

// usd says a monthly figure or range with thousands separated, "$96,000.00", signed for a
// change ("+$48.00", "-$96.00").
func usd(low, high float64, signed bool) string {
	one := func(v float64) string {
		sign := ""
		switch {
		case v < 0:
			sign, v = "-", -v
		case signed:
			sign = "+"
		}
		cents := fmt.Sprintf("%.2f", v)
		whole, frac, _ := strings.Cut(cents, ".")
		for i := len(whole) - 3; i > 0; i -= 3 {
			whole = whole[:i] + "," + whole[i:]
		}
		return sign + "$" + whole + "." + frac
	}
	if low == high {
		return one(low)
	}
	return one(low) + " to " + one(high)
}

// stacks counts stacks: "1 stack", "2 stacks".
func stacks(n int) string {
	if n == 1 {
		return "1 stack"
	}
	return fmt.Sprintf("%d stacks", n)
}

// roundTook is a run's time as people read it: tenths of a second under a minute, whole seconds
// above.
func roundTook(d time.Duration) string {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// driftDetail lists, for one stack or -v, each drifted stack's fields with both values and why
// one stays, under its file and stack: what drift's rows name in short.
func driftDetail(w io.Writer, r runreport.Report) {
	for _, s := range r.Stacks {
		if len(s.Drift)+len(s.Pending) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s (%s):\n", s.File, s.Stack)
		for _, f := range s.Drift {
			fmt.Fprintf(w, "  drifted %s\n", fielddrift.DescribeDrift(f))
			if f.Stays != "" {
				fmt.Fprintf(w, "    %s\n", f.Stays)
			}
		}
		for _, f := range s.Pending {
			fmt.Fprintf(w, "  pending %s: %s → %s%s, not applied\n", f.Field, show(fielddrift.Before(f)), show(f.Manifest), fielddrift.AlreadyInCloud(f))
		}
	}
}
