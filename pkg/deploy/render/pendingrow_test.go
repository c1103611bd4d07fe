package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
)

// A drift's row says "pending" once: a stack the cloud left as the last up did, whose manifest
// changed since, reads "no drift; pending: … 2 → 3, not applied", never "pending: no drift;
// pending: …"; one that drifted too keeps its own word and says pending once after it.
func TestADriftRowSaysPendingOnce(t *testing.T) {
	pending := []outcome.FieldDrift{{Field: nodeCount, Live: float64(2), Recorded: float64(2), Manifest: float64(3)}}
	const said = "pending: " + nodeCount + " 2 → 3, not applied"
	tests := []struct {
		name   string
		status outcome.Status
		reason string // as Deployer.Drift composes it
		says   outcome.Says
		drift  []outcome.FieldDrift
		want   string // the row's result
	}{
		{"a manifest edit alone is no drift, pending", outcome.Done, "no drift; " + said, outcome.SaysItself, nil,
			"no drift; " + said},
		{"a drift with a manifest edit says drifted, then pending", outcome.Drifted, "up would update 1; " + said, outcome.SaysNot,
			[]outcome.FieldDrift{{Field: nodeCount, Live: float64(6), Recorded: float64(2), Manifest: float64(3)}},
			"drifted: up would update 1; " + said + "; " + nodeCount + " (the cloud has 6, the last up applied 2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := fleetTarget(t, 1, 3)
			o := outcome.Outcome{Target: target, Status: tt.status, Result: deployedWith(t, target, 2, "update"),
				Drift: tt.drift, Pending: pending}
			o.SayReason(tt.says, tt.reason, "")
			r := Report(operation.Drift, []outcome.Outcome{o}, clouds.Prices)
			if got := rowText(operation.Drift, r.Stacks[0]); got != tt.want {
				t.Errorf("the row says %q, want %q", got, tt.want)
			}
			var out bytes.Buffer
			Fleet(&out, r, FleetOptions{All: true})
			row := strings.Split(out.String(), "\n")[1]
			if n := strings.Count(row, "pending"); n != 1 {
				t.Errorf("the row says pending %d times, want once:\n%s", n, row)
			}
		})
	}
}
