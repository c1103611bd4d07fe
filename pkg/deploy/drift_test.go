package deploy_test

import (
	"context"
	"encoding/json"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud/scan"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/fielddrift"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/kubeversion"
)

func TestDriftShowsTheTagsTheCloudHasNotTheInputsPulumiDerivesFromThem(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	c := cluster(t)
	mustUp(ctx, t, d, c)
	// A tag added in the console: the refreshed outputs hold all three, the refreshed inputs, as a
	// bridged provider derives them from what it last sent, only some.
	// The stack's mark (stackmark) stays on the cluster, as the console leaves it.
	mark := c.MarkedIn(b).Mark().Tag()
	cloud := []any{"resource-kind:DigitalOceanKubernetesCluster", "resource-name:dev-fra1", "hand-edited", mark}
	b.EditRefreshed(c.Key(), clusterType, "dev-fra1", "tags", []any{"hand-edited", "resource-kind:DigitalOceanKubernetesCluster", mark}, cloud)
	// The tags clusterplane derives from the manifest's metadata are its own, never the user's:
	// drift shows the user's part of the cloud's list.
	o := d.Drift(ctx, c)
	if want := []any{"hand-edited"}; o.Status != outcome.Drifted || len(o.Drift) != 1 || o.Drift[0].Field != "spec.tags" ||
		!reflect.DeepEqual(o.Drift[0].Live, want) || !reflect.DeepEqual(o.Drift[0].Manifest, []any{}) {
		t.Errorf("drift after a console tag edit: %s %+v, want spec.tags with the cloud's %v against none", o.Status, o.Drift, want)
	}
}

// Promise: adopt-then-preview-updates-tags-only
func TestDriftIsSilentOnWhatTheProviderNeverReadsFromTheCloud(t *testing.T) {
	tests := []struct {
		name, prop string
		// cloud is what the refresh read: nil when the provider never sets the property.
		cloud any
		drift string
	}{
		// After an import the state holds nothing for registryIntegration: the provider's Read
		// never sets it, so there is no cloud value to disagree with.
		{"registryIntegration, never read back", "registryIntegration", nil, ""},
		{"autoUpgrade, read back and changed", "autoUpgrade", true, "spec.autoUpgrade"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d, b := deployer()
			c := cluster(t)
			mustUp(ctx, t, d, c)
			b.EditRefreshed(c.Key(), clusterType, "dev-fra1", tt.prop, tt.cloud, tt.cloud)
			o := d.Drift(ctx, c)
			var got []string
			for _, f := range o.Drift {
				got = append(got, f.Field)
			}
			if want := []string{tt.drift}; tt.drift == "" && len(got) != 0 || tt.drift != "" && !reflect.DeepEqual(got, want) {
				t.Errorf("drift %s %v, want %q", o.Status, got, tt.drift)
			}
		})
	}
}

// A label added in the cloud to a pool whose manifest has none stays whatever up does: the
// provider's API client leaves an empty label map out of the update (the effects table's removal
// of spec.labels). drift says so, never that up would put it back; beside a label the manifest
// keeps, up sends the whole map and the cloud's extra label goes.
func TestDriftSaysALabelNoUpCanClearIsOneAndNotThatUpWouldUpdateIt(t *testing.T) {
	const poolType = "digitalocean:index/kubernetesNodePool:KubernetesNodePool"
	sneaky := map[string]any{"sneaky": "yes"}
	tests := []struct {
		name     string
		labels   string // the manifest's labels block, "" for none
		live     map[string]any
		stays    bool
		upClears bool
	}{
		{"no labels in the manifest: up cannot clear it", "", sneaky, true, false},
		{"a label the manifest keeps: up sends the whole map", "  labels: {workload: apps}\n", map[string]any{"workload": "apps", "sneaky": "yes"}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d, b := deployer()
			p := target(t, "pool.yaml", manifest(t, "digitaloceankubernetesnodepool/minimal.yaml")+tt.labels)
			mustUp(ctx, t, d, p)
			b.EditRefreshed(p.Key(), poolType, "dev-fra1-workers", "labels", tt.live, tt.live)
			o := d.Drift(ctx, p)
			if o.Status != outcome.Drifted || len(o.Drift) != 1 || o.Drift[0].Field != "spec.labels" {
				t.Fatalf("drift: %s %q %+v, want spec.labels drifted", o.Status, o.Reason, o.Drift)
			}
			// The whole map, so that the key the cloud added is named.
			if !reflect.DeepEqual(o.Drift[0].Live, tt.live) {
				t.Errorf("the cloud has %v, want %v", o.Drift[0].Live, tt.live)
			}
			if got := o.Drift[0].Stays != ""; got != tt.stays || tt.stays && !strings.Contains(o.Drift[0].Stays, "empty label map") {
				t.Errorf("stays %q, want it said %t with the provider's reason", o.Drift[0].Stays, tt.stays)
			}
			if got := strings.Contains(o.Reason, "would update"); got != tt.upClears {
				t.Errorf("reason %q says up would put it back %t, want %t", o.Reason, got, tt.upClears)
			}
		})
	}
}

// An up reads the cloud first: what changed there since the last up is put back and named, the
// cost's change is from what the cloud had, and a difference no up can put back ends the up as
// drifted, never as done. A preview, which reads the cloud as up does, says the same beforehand.
// Promise: preview-exit-codes
// Promise: up-never-done-where-it-cannot-put-back
// Promise: up-label-that-stays-ends-drifted
func TestUpNamesWhatItPutBackFromTheCloudAndIsNotDoneWhereItCannot(t *testing.T) {
	const poolType = "digitalocean:index/kubernetesNodePool:KubernetesNodePool"
	tests := []struct {
		name        string
		prop        string
		live        any
		status      outcome.Status
		putBack     string // the field put back, "" for none
		stays       string // the field that still differs, "" for none
		cost        string // what the cost line says
		reasonNames string
	}{
		{"a pool resized in the cloud is put back, from its cost", "nodeCount", 6, outcome.Done, "spec.nodeCount", "",
			"-$192.00/month ($288.00 → $96.00/month", "put back what changed in the cloud: spec.nodeCount"},
		{"a label added in the cloud stays, and the up says so", "labels", map[string]any{"sneaky": "yes"}, outcome.Drifted, "", "spec.labels",
			"unchanged ($96.00 → $96.00/month", "the cloud still differs where no up can put it back: spec.labels"},
	}
	ops := []struct {
		name string
		run  func(ctx context.Context, d *deploy.Deployer, p deploytarget.Target) outcome.Outcome
	}{
		{"preview", func(ctx context.Context, d *deploy.Deployer, p deploytarget.Target) outcome.Outcome {
			return d.Preview(ctx, p, deploy.PreviewOptions{})
		}},
		{"up", func(ctx context.Context, d *deploy.Deployer, p deploytarget.Target) outcome.Outcome {
			return d.Up(ctx, p, deploy.UpOptions{Yes: true})
		}},
	}
	for _, tt := range tests {
		for _, op := range ops {
			t.Run(op.name+": "+tt.name, func(t *testing.T) {
				ctx := context.Background()
				d, b := deployer()
				p := target(t, "pool.yaml", manifest(t, "digitaloceankubernetesnodepool/minimal.yaml"))
				mustUp(ctx, t, d, p)
				b.EditRefreshed(p.Key(), poolType, "dev-fra1-workers", tt.prop, tt.live, tt.live)
				o := op.run(ctx, d, p)
				reason := tt.reasonNames
				if op.name == "preview" {
					reason = strings.Replace(reason, "put back", "would put back", 1)
				}
				checkPutBack(t, o, tt.status, reason, tt.putBack, tt.stays, tt.cost)
			})
		}
	}
}

// checkPutBack checks what an up or a preview said of its read of the cloud: its status and
// reason, the fields put back and those that still differ, and the cost from what the cloud had.
func checkPutBack(t *testing.T, o outcome.Outcome, status outcome.Status, reason, putBack, stays, says string) {
	t.Helper()
	if o.Status != status || !strings.Contains(o.Reason, reason) {
		t.Fatalf("%s %q, want %s saying %q", o.Status, o.Reason, status, reason)
	}
	if got := fieldsOf(o.PutBack); got != putBack {
		t.Errorf("put back %q, want %q", got, putBack)
	}
	if got := fieldsOf(o.Drift); got != stays {
		t.Errorf("still differs %q, want %q", got, stays)
	}
	outcomes := []outcome.Outcome{o}
	report := runreport.NewReport("up", outcomes)
	report.Price(outcomes, clouds.Prices)
	if c := report.Stacks[0].Cost; c == nil || !strings.Contains(c.String(), says) {
		t.Errorf("cost %v, want it to say %q", c, says)
	}
	data, err := json.Marshal(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := validate(reportSchema(t), data); err != nil {
		t.Errorf("the report does not validate against its schema: %v", err)
	}
}

// fieldsOf names the fields, "" for none.
func fieldsOf(fields []outcome.FieldDrift) string {
	var names []string
	for _, f := range fields {
		names = append(names, f.Field)
	}
	return strings.Join(names, ", ")
}

// Emptying a DigitalOcean pool's labels is refused: the provider never sends an empty map. Once
// the labels are gone from the cloud (removed there, as the refusal advises), the manifest without
// them only records what is so: preview and up, which read the cloud first, deploy it.
func TestAnEmptiedLabelMapIsRefusedUntilTheCloudHoldsItEmpty(t *testing.T) {
	const poolType = "digitalocean:index/kubernetesNodePool:KubernetesNodePool"
	tests := []struct {
		name  string
		cloud map[string]any // the labels the cloud holds when the manifest drops them
		want  outcome.Status
	}{
		{"the cloud still holds the label", map[string]any{"team": "web"}, outcome.Blocked},
		{"the label was removed in the cloud", map[string]any{}, outcome.Done},
	}
	for _, tt := range tests {
		for _, op := range []string{"preview", "up"} {
			t.Run(op+": "+tt.name, func(t *testing.T) {
				ctx := context.Background()
				d, b := deployer()
				text := manifest(t, "digitaloceankubernetesnodepool/minimal.yaml")
				mustUp(ctx, t, d, target(t, "pool.yaml", text+"  labels: {team: web}\n"))
				b.EditRefreshed("digitaloceankubernetesnodepool/dev-fra1-workers", poolType, "dev-fra1-workers", "labels", tt.cloud, tt.cloud)
				p := target(t, "pool.yaml", text)
				var o outcome.Outcome
				if op == "preview" {
					o = d.Preview(ctx, p, deploy.PreviewOptions{})
				} else {
					o = d.Up(ctx, p, deploy.UpOptions{Yes: true})
				}
				if o.Status != tt.want {
					t.Errorf("%s: %s %q %v, want %s", op, o.Status, o.Reason, o.Err, tt.want)
				}
			})
		}
	}
}

func TestStatusNamesADriftNoUpPutsBackApartFromChangesPending(t *testing.T) {
	const poolType = "digitalocean:index/kubernetesNodePool:KubernetesNodePool"
	tests := []struct {
		name, prop string
		cloud      any
		reason     outcome.Reason
		says       string
	}{
		{"a pool resized in the cloud", "nodeCount", float64(6), "ChangesPending", "spec.nodeCount: the cloud has 6, the manifest 2"},
		{"a label added in the cloud", "labels", map[string]any{"sneaky": "yes"}, "NotPutBackByUp", `the cloud has {"sneaky":"yes"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d, b := deployer()
			p := target(t, "pool.yaml", manifest(t, "digitaloceankubernetesnodepool/minimal.yaml"))
			mustUp(ctx, t, d, p)
			b.EditRefreshed(p.Key(), poolType, "dev-fra1-workers", tt.prop, tt.cloud, tt.cloud)
			o := d.Status(ctx, p, deploy.StatusOptions{Drift: true})
			if o.Report == nil || len(o.Report.Conditions) != 2 || o.Report.Conditions[1].Reason != tt.reason {
				t.Fatalf("status --drift: %+v, want Drifted for %s", o.Report, tt.reason)
			}
			if msg := o.Report.Conditions[1].Message; !strings.Contains(msg, tt.says) {
				t.Errorf("Drifted says %q, want it to name the field and both values: %q", msg, tt.says)
			}
		})
	}
}

// status --drift goes through the fleet scan as drift does: a stack the scan vouches for is in
// sync with no preview run; a stack it found changed, or could not judge, is previewed.
func TestStatusDriftPreviewsOnlyTheStacksTheFleetScanCannotVouchFor(t *testing.T) {
	tests := []struct {
		name    string
		scanned deploy.Scanned
		reason  outcome.Reason
		preview bool
	}{
		{"a stack the scan found unchanged is in sync without a preview",
			deploy.Scanned{Verdict: scan.Same, Why: "the cloud lists it as the state recorded", Unchanged: true}, "InSync", false},
		{"a stack the scan found differing is previewed",
			deploy.Scanned{Verdict: scan.Differs, Why: "the cloud differs from the state in nodeCount"}, "ChangesPending", true},
		{"a stack the scan could not judge is previewed",
			deploy.Scanned{Verdict: scan.Unjudged, Why: "creates pending"}, "ChangesPending", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d, b := deployer()
			c := cluster(t)
			mustUp(ctx, t, d, c)
			b.Edit(c.Key(), clusterType, "dev-fra1", "tags", []any{"hand-edited"})
			d.Scanned = map[string]deploy.Scanned{c.Key(): tt.scanned}
			o := d.Status(ctx, c, deploy.StatusOptions{Drift: true})
			if o.Report == nil || o.Report.Condition("Drifted").Reason != tt.reason {
				t.Fatalf("status --drift: %+v, want Drifted %s", o.Report, tt.reason)
			}
			if got := slices.Contains(b.Calls(), "preview "+c.Key()); got != tt.preview {
				t.Errorf("engine calls %v: a preview run %t, want %t", b.Calls(), got, tt.preview)
			}
		})
	}
}

// A stack that holds nothing, destroyed or never deployed, has nothing in the cloud to drift:
// drift says so and exits 0, where a preview would say up creates it all; status --drift leaves
// Drifted to Ready, which says why.
// Promise: drift-not-deployed-exits-zero
func TestDriftOfAStackThatHoldsNothingSaysNotDeployedNotDrifted(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(ctx context.Context, t *testing.T, d *deploy.Deployer, c deploytarget.Target)
		ready   outcome.Reason
		code    int
	}{
		{"a destroyed stack", func(ctx context.Context, t *testing.T, d *deploy.Deployer, c deploytarget.Target) {
			mustUp(ctx, t, d, c)
			if o := d.Destroy(ctx, c, deploy.DestroyOptions{}); o.Status != outcome.Done {
				t.Fatalf("destroy: %s %v", o.Status, o.Err)
			}
		}, "Destroyed", exitcode.OK},
		{"a stack never deployed", func(context.Context, *testing.T, *deploy.Deployer, deploytarget.Target) {}, "NotDeployed", exitcode.NotReady},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d, _ := deployer()
			c := cluster(t)
			tt.prepare(ctx, t, d, c)
			o := d.Drift(ctx, c)
			if o.Status != outcome.Done || o.Reason != fielddrift.NotDeployed || runreport.ExitCode([]outcome.Outcome{o}) != exitcode.OK {
				t.Errorf("drift: %s %q %v, want done, %q, exit 0", o.Status, o.Reason, o.Err, fielddrift.NotDeployed)
			}
			st := d.Status(ctx, c, deploy.StatusOptions{Drift: true})
			if st.Report == nil || st.Report.Condition("Ready").Reason != tt.ready || st.Report.Condition("Drifted").Reason != "NotDeployed" {
				t.Fatalf("status --drift: %+v, want Ready %s and Drifted NotDeployed", st.Report, tt.ready)
			}
			if code := runreport.ExitCode([]outcome.Outcome{st}); code != tt.code {
				t.Errorf("status --drift exits %d, want %d as for plain status", code, tt.code)
			}
		})
	}
}

// status --drift agrees with drift when the preview fails: a version the cloud upgraded the
// cluster past is drift no up puts back (exit 4), and a preview that failed otherwise cannot
// tell, which is exit 1, never 0.
// Promise: status-exit-codes
func TestStatusDriftOfAFailedPreviewIsNeverInSync(t *testing.T) {
	upgraded := stackstate.ModuleRefusal((&kubeversion.UpgradedPastError{Field: "spec.kubernetesVersion",
		Manifest: "1.31", Live: "1.32.2-do.0", Cloud: "DigitalOcean", Want: "1.32"}).Error())
	tests := []struct {
		name         string
		err          error
		status       string
		reason       outcome.Reason
		says         string
		exit         int
		cloudVersion string
	}{
		{"a version the cloud upgraded past is drift no up puts back", upgraded, "True", "NotPutBackByUp",
			`spec.kubernetesVersion: the cloud has "1.32.2-do.0", the manifest "1.31"`, exitcode.NotReady, "1.32.2-do.0"},
		{"a replacement of a protected cluster the engine refused is drift no up puts back",
			&stackstate.ProtectedError{Resources: []string{"KubernetesCluster dev-fra1"}}, "True", "NotPutBackByUp",
			"up would replace or delete KubernetesCluster dev-fra1, which is protected", exitcode.NotReady, ""},
		{"a preview that failed otherwise cannot tell", &stackstate.EngineError{Command: "preview", Cause: "503 Service Unavailable"},
			"Unknown", "PreviewFailed", "503 Service Unavailable", exitcode.Invalid, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d, b := deployer()
			c := target(t, "cluster.yaml", manifest(t, "digitaloceankubernetescluster/minimal.yaml"))
			mustUp(ctx, t, d, c)
			b.Fail(c.Key(), "preview", tt.err)
			if tt.cloudVersion != "" {
				// The module refuses the recorded version because the cloud runs a later one,
				// which the preview made again with that version reads.
				b.EditCloud(c.Key(), clusterType, "dev-fra1", "version", tt.cloudVersion)
			}
			o := d.Status(ctx, c, deploy.StatusOptions{Drift: true})
			if o.Report == nil || len(o.Report.Conditions) != 2 {
				t.Fatalf("status --drift: %+v, want Ready and Drifted", o.Report)
			}
			got := o.Report.Conditions[1]
			if got.Status != tt.status || got.Reason != tt.reason || !strings.Contains(got.Message, tt.says) {
				t.Errorf("Drifted %s/%s %q, want %s/%s saying %q", got.Status, got.Reason, got.Message, tt.status, tt.reason, tt.says)
			}
			if code := runreport.ExitCode([]outcome.Outcome{o}); code != tt.exit {
				t.Errorf("status --drift exits %d, want %d", code, tt.exit)
			}
		})
	}
}

// Drift is what the cloud changed since the last up; the manifest's own change since is pending,
// reported apart. drift and status --drift say the same of each case.
// Promise: drift-is-what-the-cloud-changed
// Promise: drift-pending-exits-zero-or-three-with-fail-on-pending
// Promise: word-drifted
// Promise: word-pending
// Promise: drift-cloud-already-at-manifest-is-pending
func TestDriftIsWhatTheCloudChangedAndAManifestEditIsPending(t *testing.T) {
	const poolType = "digitalocean:index/kubernetesNodePool:KubernetesNodePool"
	tests := []struct {
		name string
		// manifest is the node count the manifest says after the up of 2; cloud what the cloud
		// has then (0: left as the up made it).
		manifest, cloud string
		wantDrift       outcome.Status
		drifted         string // the drifted field's text, "" for none
		pending         string // the pending text, "" for none
		condition       string // status --drift's Drifted condition: status/reason
	}{
		{"a manifest edit alone is pending, not drift", "3", "", outcome.Done, "",
			"pending: spec.nodeCount 2 → 3, not applied", "False/InSync"},
		{"a change in the cloud alone is drift", "2", "6", outcome.Drifted,
			"spec.nodeCount: the cloud has 6, the manifest 2", "", "True/ChangesPending"},
		{"a manifest edit and another value in the cloud are both", "3", "6", outcome.Drifted,
			"spec.nodeCount: the cloud has 6, the last up applied 2", "pending: spec.nodeCount 2 → 3, not applied", "True/ChangesPending"},
		{"the cloud already at the manifest's new value is no drift, and pending for up to record", "3", "3", outcome.Done, "",
			"pending: spec.nodeCount 2 → 3 (the cloud has it already), not applied", "False/InSync"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d, b := deployer()
			text := manifest(t, "digitaloceankubernetesnodepool/minimal.yaml")
			mustUp(ctx, t, d, target(t, "pool.yaml", text))
			p := target(t, "pool.yaml", strings.Replace(text, "nodeCount: 2", "nodeCount: "+tt.manifest, 1))
			if tt.cloud != "" {
				n, _ := strconv.Atoi(tt.cloud)
				b.EditRefreshed(p.Key(), poolType, "dev-fra1-workers", "nodeCount", float64(n), float64(n))
			}
			o := d.Drift(ctx, p)
			var drifted []string
			for _, f := range o.Drift {
				drifted = append(drifted, fielddrift.DescribeDrift(f))
			}
			if o.Status != tt.wantDrift || strings.Join(drifted, "; ") != tt.drifted {
				t.Errorf("drift = %s, drifted %q; want %s, drifted %q (%s)", o.Status, drifted, tt.wantDrift, tt.drifted, o.Reason)
			}
			if pending := fielddrift.DescribePending(o.Pending); len(o.Pending) > 0 != (tt.pending != "") || tt.pending != "" && pending != tt.pending {
				t.Errorf("drift's pending: %q (%d fields), want %q", pending, len(o.Pending), tt.pending)
			}
			if tt.pending != "" && !strings.Contains(o.Reason, tt.pending) {
				t.Errorf("drift's reason %q does not say %q", o.Reason, tt.pending)
			}
			st := d.Status(ctx, p, deploy.StatusOptions{Drift: true})
			if st.Report == nil || len(st.Report.Conditions) != 2 {
				t.Fatalf("status --drift: %+v", st.Report)
			}
			if c := st.Report.Conditions[1]; c.Status+"/"+string(c.Reason) != tt.condition {
				t.Errorf("status --drift's Drifted is %s/%s (%s), want %s", c.Status, c.Reason, c.Message, tt.condition)
			}
		})
	}
}

// A manifest change that only records what the cloud already has (a pool resized by hand to 6,
// then the manifest set to 6) changes nothing in the cloud: its cost line is no change, from what
// the cloud had, not the recorded 2 nodes to 6.
// Promise: cost-of-recorded-only-is-no-change
func TestTheCostOfAChangeOnlyRecordedIsNoChangeFromWhatTheCloudHad(t *testing.T) {
	const poolType = "digitalocean:index/kubernetesNodePool:KubernetesNodePool"
	for _, op := range []string{"preview", "up"} {
		t.Run(op, func(t *testing.T) {
			ctx := context.Background()
			d, b := deployer()
			text := manifest(t, "digitaloceankubernetesnodepool/minimal.yaml")
			p := target(t, "pool.yaml", text)
			mustUp(ctx, t, d, p)
			b.EditRefreshed(p.Key(), poolType, "dev-fra1-workers", "nodeCount", float64(6), float64(6))
			p = target(t, "pool.yaml", strings.Replace(text, "nodeCount: 2", "nodeCount: 6", 1))
			var o outcome.Outcome
			if op == "preview" {
				o = d.Preview(ctx, p, deploy.PreviewOptions{})
			} else {
				o = d.Up(ctx, p, deploy.UpOptions{Yes: true})
			}
			if o.Result == nil || len(o.Result.RecordedOnly) != 1 || o.Result.RecordedOnly[0].Path != "spec.nodeCount" {
				t.Fatalf("%s: %s %v, want spec.nodeCount recorded only", op, o.Status, o.Err)
			}
			outcomes := []outcome.Outcome{o}
			report := runreport.NewReport(operation.Name(op), outcomes)
			report.Price(outcomes, clouds.Prices)
			if c := report.Stacks[0].Cost; c == nil || !strings.Contains(c.String(), "unchanged ($288.00 → $288.00/month") {
				t.Errorf("%s: cost %v, want unchanged at what the cloud had, $288.00", op, c)
			}
		})
	}
}
