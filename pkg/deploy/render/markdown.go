package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/deploy/fielddrift"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
)

// commentLimit is how much of a pull request comment the stacks' sections may fill: GitHub
// refuses a comment over 65,536 characters, and the summary and the table come first.
const commentLimit = 60_000

// Markdown writes the report as a pull request comment, made to be read at a fleet's size: the
// summary and the fleet's totals first, a table of only the stacks that differ (or would change,
// or did not end well), then each of them in detail: the manifest fields behind each resource
// change with old → new values, the refused changes, or the drifted fields. The stacks that need
// nothing are counted in a collapsed <details>, not listed: at 1,000 stacks the ten that differ
// stay in sight and the comment stays small.
func Markdown(w io.Writer, r runreport.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### clusterplane %s\n\n", r.Command)
	// The same summary as the text's, counts, resources and the fleet's cost, without the time.
	b.WriteString(FleetSummary(r, 0))
	b.WriteString("\n\n")
	var differ []runreport.StackReport
	for _, s := range r.Stacks {
		if listed(r.Command, s) {
			differ = append(differ, s)
		}
	}
	if len(differ) > 0 {
		b.WriteString("| File | Stack | Result |\n|---|---|---|\n")
		for _, s := range differ {
			fmt.Fprintf(&b, "| `%s` | `%s` | %s |\n", s.File, s.Stack, cell(oneLine(outcomeText(r.Command, s))))
		}
	}
	shown := 0
	for _, s := range differ {
		if b.Len() > commentLimit {
			break
		}
		stackSection(&b, r.Command, s)
		shown++
	}
	if left := len(differ) - shown; left > 0 {
		fmt.Fprintf(&b, "\n%d more stacks differ, not detailed here: a comment holds at most 65,536 characters "+
			"(`clusterplane %s -o json` or `--report-file` has every one)\n", left, r.Command)
	}
	if same := len(r.Stacks) - len(differ); same > 0 {
		fmt.Fprintf(&b, "\n<details><summary>%d %s unchanged</summary>\n\n%s\n\n</details>\n", same, plural(same, "stack", "stacks"),
			unchangedNote(r.Command))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// unchangedNote says what the collapsed stacks are, and where each is listed.
func unchangedNote(command operation.Name) string {
	what := "No change, no drift, nothing refused"
	if command == operation.Drift {
		what = "No drift, or never deployed"
	}
	return what + ": counted here, not listed (`clusterplane " + string(command) + " -o json` or `--report-file` lists each)."
}

// plural is one or many as n says.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// stackSection writes one stack's section: under its file and stack, each change, refusal, drift
// and difference as a list item.
func stackSection(b *strings.Builder, command operation.Name, s runreport.StackReport) {
	// Drift is the fields that differ: the resource changes behind them would repeat them.
	resources := s.Resources
	if len(s.Drift) > 0 || command == operation.Drift {
		resources = nil
	}
	if len(resources)+len(s.Refused)+len(s.RecordedOnly)+len(s.Drift)+len(s.Pending)+len(s.PutBack)+len(s.Sets)+len(s.Disagreements)+len(s.InPlace)+len(s.Policy) == 0 &&
		s.Cost == nil && !s.ProtectionOff {
		return
	}
	// The stack too: a file may hold several, and its cost line is under this heading.
	fmt.Fprintf(b, "\n#### `%s` (`%s`)\n\n", s.File, s.Stack)
	if s.ProtectionOff {
		fmt.Fprintf(b, "- **%s**\n", runreport.ProtectionOffLine)
	}
	policyLines(b, s.Policy)
	for _, c := range s.Refused {
		fmt.Fprintf(b, "- **refused** `%s`: %s: %s\n", c.Path, codeValues(c.Old, c.New), c.Reason)
	}
	for _, c := range s.RecordedOnly {
		fmt.Fprintf(b, "- **recorded only** `%s`: %s: %s\n", c.Path, codeValues(c.Old, c.New), c.Reason)
	}
	resourceLines(b, resources)
	if s.Cost != nil {
		fmt.Fprintf(b, "- monthly cost: %s\n", s.Cost)
	}
	cloudItems(b, command, s)
}

// cloudItems writes what a read of the cloud found as list items: the fields taken over, put
// back and drifted, and an adoption's differences.
func cloudItems(b *strings.Builder, command operation.Name, s runreport.StackReport) {
	for _, f := range s.Sets {
		fmt.Fprintf(b, "- **%s** `%s`: %s (taken over as the cloud had it, not yet set by an up)\n",
			setVerb(command == operation.Preview), f.Field, codeValues(f.Live, f.Manifest))
	}
	for _, f := range s.PutBack {
		fmt.Fprintf(b, "- **%s** `%s`: %s (changed in the cloud since the last up)\n", putBack(command), f.Field, codeValues(f.Live, f.Manifest))
	}
	for _, d := range s.Drift {
		if d.Recorded != nil {
			fmt.Fprintf(b, "- drifted `%s`: the cloud has `%s`, the last up applied `%s`\n", d.Field, show(d.Live), show(d.Recorded))
		} else {
			fmt.Fprintf(b, "- drifted `%s`: the cloud has `%s`, the manifest `%s`\n", d.Field, show(d.Live), show(d.Manifest))
		}
		if d.Stays != "" {
			fmt.Fprintf(b, "  - %s\n", d.Stays)
		}
	}
	for _, d := range s.Pending {
		fmt.Fprintf(b, "- pending `%s`: %s, not applied\n", d.Field, codeValues(fielddrift.Before(d), d.Manifest))
	}
	for _, d := range s.Disagreements {
		fmt.Fprintf(b, "- **blocks adoption** `%s` (%s): the cloud has `%s`, the manifest `%s`\n", d.Field, d.Effect, show(d.Live), show(d.Manifest))
	}
	for _, d := range s.InPlace {
		fmt.Fprintf(b, "- the next `up` changes `%s` in place: the cloud has `%s`, up sends `%s`\n", d.Field, show(d.Live), show(d.Manifest))
	}
}
