package render

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// An interrupted stack's Markdown says "cancelled" once, then what the engine did, as its row in
// the text does: the reason begins with the word, and the row gives what follows it.
func TestAnInterruptedStackSaysCancelledOnceInMarkdownAsInItsRow(t *testing.T) {
	o := outcome.Outcome{Target: fleetTarget(t, 1, 2), Status: outcome.Cancelled, Err: stackstate.ErrCancelled}
	o.SayReason(outcome.SaysFirst, "cancelled", "")
	o.AddToReason("; ", "the engine finished the steps it had begun and nothing is left pending: run it again to finish")
	r := runreport.NewReport(operation.Up, []outcome.Outcome{o})
	const want = "cancelled: the engine finished the steps it had begun and nothing is left pending: run it again to finish"
	if got := rowText(operation.Up, r.Stacks[0]); got != want {
		t.Errorf("the row says %q, want %q", got, want)
	}
	var md strings.Builder
	if err := Markdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| "+want+" |") {
		t.Errorf("the Markdown does not say %q in the stack's row:\n%s", want, md.String())
	}
}
