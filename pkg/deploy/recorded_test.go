package deploy_test

import (
	"context"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// Promise: recorded-only-changes-asked-and-planned
func TestAChangeTheEngineCountsSameIsListedCountedAndAskedAbout(t *testing.T) {
	ctx := context.Background()
	protectedText := strings.Replace(mustText(t, cluster(t)), "deletionProtection: false", "deletionProtection: true", 1)
	tests := []struct {
		name string
		// from is what the stack deployed; to the manifest deployed next.
		from, to string
		// recorded are the paths listed as recorded only; off whether protection goes off.
		recorded string
		off      bool
	}{
		{name: "deletion protection turned off is listed and said on a line of its own",
			from: protectedText, to: mustText(t, cluster(t)),
			recorded: "spec.deletionProtection", off: true},
		{name: "deletion protection turned on is listed without the warning",
			from: mustText(t, cluster(t)), to: protectedText,
			recorded: "spec.deletionProtection"},
		{name: "annotations, sent nowhere, are listed",
			from: mustText(t, cluster(t)), to: strings.Replace(mustText(t, cluster(t)), "metadata:\n", "metadata:\n  annotations: {owner: b}\n", 1),
			recorded: "metadata.annotations"},
		{name: "a change the engine carries is not listed as recorded only",
			from: mustText(t, cluster(t)), to: strings.Replace(mustText(t, cluster(t)), "nodeCount: 2", "nodeCount: 4", 1)},
		{name: "an unchanged manifest lists nothing",
			from: mustText(t, cluster(t)), to: mustText(t, cluster(t))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, _ := deployer()
			mustUp(ctx, t, d, target(t, "cluster.yaml", tt.from))
			next := target(t, "cluster.yaml", tt.to)

			preview := d.Preview(ctx, next, deploy.PreviewOptions{})
			r := runreport.NewReport("preview", []outcome.Outcome{preview})
			var got []string
			for _, c := range r.Stacks[0].RecordedOnly {
				got = append(got, c.Path)
			}
			if strings.Join(got, " ") != tt.recorded {
				t.Errorf("recorded only %v, want %q (steps %+v)", got, tt.recorded, preview.Result.Steps)
			}
			if r.Stacks[0].ProtectionOff != tt.off {
				t.Errorf("protection off %t, want %t", r.Stacks[0].ProtectionOff, tt.off)
			}
			if tt.recorded != "" && !strings.Contains(preview.Reason, "recorded only") {
				t.Errorf("the preview's summary %q does not count the change", preview.Reason)
			}
			// Without --yes a change, even one the engine counts same, is asked about.
			asked := false
			up := d.Up(ctx, next, deploy.UpOptions{Interactive: true, Confirm: func(deploytarget.Target, stackstate.Result) bool {
				asked = true
				return false
			}})
			if changed := tt.recorded != "" || strings.Contains(tt.to, "nodeCount: 4"); asked != changed {
				t.Errorf("asked %t, want %t (%s %s)", asked, changed, up.Status, up.Reason)
			}
		})
	}
}
