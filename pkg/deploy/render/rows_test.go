package render

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/kinds"

	"github.com/pkg/errors"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/redact"
)

// -update rewrites the golden files; another test file of the package may declare the flag too.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite testdata/*.golden with what the tests print")
	}
}

// updating tells whether the tests run with -update.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// nodeCount is the manifest field the fleets below change, in the manifest or in the cloud.
const nodeCount = "spec.defaultNodePool.nodeCount"

// fleetTarget is the target of fleet-NNNN.yaml, a DigitalOcean cluster of nodes s-2vcpu-4gb nodes.
func fleetTarget(t *testing.T, i, nodes int) deploytarget.Target {
	t.Helper()
	k, _ := registry.Kinds().ByName("DigitalOceanKubernetesCluster")
	in := k.NewStackInput()
	name := fmt.Sprintf("fleet-%04d", i)
	text := fmt.Sprintf("apiVersion: digitalocean.clusterplane.dev/v1\nkind: DigitalOceanKubernetesCluster\nmetadata:\n  name: %s\n"+
		"spec:\n  clusterName: %s\n  region: fra1\n  kubernetesVersion: 1.31.1-do.5\n  defaultNodePool:\n    size: s-2vcpu-4gb\n    nodeCount: %d\n",
		name, name, nodes)
	if err := stackinput.Parse([]byte(text), name+".yaml", in); err != nil {
		t.Fatal(err)
	}
	return deploytarget.NewTarget("fleet/"+name+".yaml", k, in, "")
}

// deployedWith is an engine result whose stack last deployed t's manifest with nodes nodes, and
// whose step updates the default pool's node count: the change in the manifest or in the cloud.
func deployedWith(t *testing.T, target deploytarget.Target, nodes int, op string) *stackstate.Result {
	t.Helper()
	old := fleetTarget(t, 0, nodes)
	manifest, err := protojson.Marshal(apikinds.Target(old.Input))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(manifest), "fleet-0000", strings.TrimSuffix(filepath.Base(target.File), ".yaml"))
	res := &stackstate.Result{Changes: map[string]int{"same": 3}, Previous: map[string]any{deploytarget.ManifestOutput: text}}
	if op != "" {
		res.Changes[op] = 1
		const typ = "digitalocean:index/kubernetesCluster:KubernetesCluster"
		res.Steps = []stackstate.Step{{URN: "urn:pulumi:" + target.Stack + "::" + target.Project + "::" + typ + "::cluster", Type: typ,
			Name: "cluster", Action: op, Paths: []string{"nodePool.nodeCount"}}}
	}
	return res
}

// What happens to a stack of the fleets below.
type happening int

const (
	unchanged     happening = iota // as its last up left it: the scan does not run it
	cloudResized                   // resized in the cloud from 2 nodes to 3
	manifestGrown                  // its manifest grows from 2 nodes to 3
	rateLimited                    // its engine fails on the cloud's rate limit
)

// fleetOutcomes are a command's outcomes over a fleet of n clusters, what happens to each: built
// as the engine's outcomes are, no engine needed.
func fleetOutcomes(t *testing.T, command operation.Name, n int, happens map[int]happening) []outcome.Outcome {
	t.Helper()
	var out []outcome.Outcome
	for i := 1; i <= n; i++ {
		var o outcome.Outcome
		switch happens[i] {
		case unchanged:
			o = outcome.Outcome{Target: fleetTarget(t, i, 2), Status: outcome.Done, Reason: deploy.Unchanged, NotRun: true,
				Verdict: outcome.Unchanged}
			if command == operation.Drift {
				o.Reason = "no drift: the cloud's list shows it as its records hold it"
			}
		case cloudResized:
			o = resized(t, command, fleetTarget(t, i, 2))
		case manifestGrown:
			o = grown(t, command, fleetTarget(t, i, 3))
		case rateLimited:
			o = outcome.Outcome{Target: fleetTarget(t, i, 2), Status: outcome.Failed,
				Err: errors.New("update failed: digitalocean:index/kubernetesCluster:KubernetesCluster cluster: 429 Too Many Requests")}
			o.SayReason(outcome.SaysFirst, "failed", "") // as a failure's outcome says it
		}
		o.Took = time.Duration(happens[i]) * 41 * time.Second
		out = append(out, o)
	}
	return out
}

// resized is a command's outcome over a cluster resized in the cloud to 3 nodes, 2 in its manifest.
func resized(t *testing.T, command operation.Name, target deploytarget.Target) outcome.Outcome {
	drift := []outcome.FieldDrift{{Field: nodeCount, Live: float64(3), Manifest: float64(2)}}
	res := deployedWith(t, target, 2, "update")
	switch command {
	case "drift":
		return outcome.Outcome{Target: target, Status: outcome.Drifted, Reason: "up would update 1", Result: res, Drift: drift}
	case "preview":
		return outcome.Outcome{Target: target, Status: outcome.Done, Result: res, PutBack: drift,
			Reason: "1 update, 3 same; would put back what changed in the cloud: " + nodeCount}
	}
	return outcome.Outcome{Target: target, Status: outcome.Done, Result: res, PutBack: drift,
		Reason: "1 update, 3 same; put back what changed in the cloud: " + nodeCount}
}

// grown is a command's outcome over a cluster whose manifest grew from 2 nodes to 3.
func grown(t *testing.T, command operation.Name, target deploytarget.Target) outcome.Outcome {
	res := deployedWith(t, target, 2, "update")
	if command == operation.Drift {
		return outcome.Outcome{Target: target, Status: outcome.Drifted, Reason: "up would update 1", Result: res,
			Drift: []outcome.FieldDrift{{Field: nodeCount, Live: float64(2), Manifest: float64(3)}}}
	}
	return outcome.Outcome{Target: target, Status: outcome.Done, Result: res, Reason: "1 update, 3 same"}
}

// The fleets of the golden files: one stack, 20 with a little of everything, 1,000 of which 3
// were resized in the cloud.
var goldenFleets = []struct {
	n       int
	happens map[int]happening
}{
	{1, map[int]happening{1: cloudResized}},
	{20, map[int]happening{3: cloudResized, 7: manifestGrown, 11: cloudResized, 15: rateLimited}},
	{1000, map[int]happening{7: cloudResized, 500: cloudResized, 993: cloudResized}},
}

// fleetText is what a command prints in text over a fleet, as the command chooses its options:
// one stack whole, a fleet a row a stack that did something.
func fleetText(t *testing.T, command operation.Name, n int, happens map[int]happening) string {
	t.Helper()
	outcomes := fleetOutcomes(t, command, n, happens)
	r := Report(command, outcomes, clouds.Prices)
	tail := func(stack string) []string {
		return []string{"Updating (" + stack + "):", "    ~ digitalocean:index/kubernetesCluster:KubernetesCluster cluster updating (2s)",
			"error: 429 Too Many Requests", "Resources:", "    3 unchanged"}
	}
	var out bytes.Buffer
	Fleet(&out, r, FleetOptions{All: n == 1, Detail: n == 1, Tail: tail, Took: 1300 * time.Millisecond})
	return out.String()
}

// The text of preview, up and drift over 1, 20 and 1,000 stacks, as testdata/*.golden holds it
// (go test -run Golden -update rewrites them).
func TestTheFleetTextOfPreviewUpAndDriftReadsAsItsGoldenFile(t *testing.T) {
	for _, command := range []operation.Name{operation.Preview, operation.Up, operation.Drift} {
		for _, f := range goldenFleets {
			t.Run(fmt.Sprintf("%s of %d", command, f.n), func(t *testing.T) {
				got := fleetText(t, command, f.n, f.happens)
				path := filepath.Join("testdata", fmt.Sprintf("fleet-%s-%d.golden", command, f.n))
				if updating() {
					if err := os.MkdirAll("testdata", 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (go test -run Golden -update writes it)", err)
				}
				if got != string(want) {
					t.Errorf("%s says:\n%s\nwant (%s):\n%s", command, got, path, want)
				}
			})
		}
	}
}

// Issue 66's measure: on 1,000 stacks with 3 resized in the cloud, an unchanged preview, up and
// drift print the 3 rows, the header and the summary, at most 10 lines, and never list a stack
// that needs nothing.
func TestAThousandStacksWithThreeDriftedPrintAtMostTenLines(t *testing.T) {
	happens := map[int]happening{7: cloudResized, 500: cloudResized, 993: cloudResized}
	for _, command := range []operation.Name{operation.Preview, operation.Up, operation.Drift} {
		got := fleetText(t, command, 1000, happens)
		lines := strings.Split(strings.TrimRight(got, "\n"), "\n")
		if len(lines) > 10 || len(lines) != 5 {
			t.Errorf("%s prints %d lines, want the header, 3 rows and the summary:\n%s", command, len(lines), got)
		}
		for _, name := range []string{"fleet-0007", "fleet-0500", "fleet-0993"} {
			if !strings.Contains(got, name+".yaml") {
				t.Errorf("%s does not list %s:\n%s", command, name, got)
			}
		}
	}
}

// "20 previewed" when 2 ran was the footer's count: a stack the engine did not run is counted as
// unchanged and not run, never as previewed or done, and every word of the summary is one of the
// results a row says.
// Promise: not-run-never-counted
func TestTheSummaryNeverCountsAStackNotRunAsPreviewedOrDone(t *testing.T) {
	happens := map[int]happening{3: cloudResized, 7: manifestGrown}
	tests := []struct {
		command operation.Name
		want    string
	}{
		{"preview", "Stacks: 2 would change, 18 unchanged (18 not run)."},
		{"up", "Stacks: 2 changed, 18 unchanged (18 not run)."},
		{"drift", "Stacks: 2 drifted, 18 unchanged (18 not run)."},
	}
	for _, tt := range tests {
		r := Report(tt.command, fleetOutcomes(t, tt.command, 20, happens), clouds.Prices)
		got := FleetSummary(r, 0)
		if !strings.HasPrefix(got, tt.want) || strings.Contains(got, "previewed") || strings.Contains(got, "done") {
			t.Errorf("%s: the summary says %q, want it to begin %q", tt.command, got, tt.want)
		}
		// The JSON report keeps its shape: the summary counts outcomes, the 18 among done, each
		// marked notRun.
		notRun := 0
		for _, s := range r.Stacks {
			if s.NotRun && s.Outcome == outcome.Done {
				notRun++
			}
		}
		if notRun != 18 || r.Summary[outcome.Done] < 18 {
			t.Errorf("%s: %d stacks done and marked notRun, summary %v; want 18, counted among done", tt.command, notRun, r.Summary)
		}
	}
}

// The fleet's monthly cost counts every priced stack, those not run too (their manifest is the one
// deployed), and says how many stacks it could not price: 20 clusters of 2 s-2vcpu-4gb nodes, one
// resized to 3 in the cloud and put back, one failed.
func TestTheFleetsMonthlyCostIsEveryStacksBeforeAndAfter(t *testing.T) {
	r := Report("up", fleetOutcomes(t, "up", 20, map[int]happening{3: cloudResized, 15: rateLimited}), clouds.Prices)
	price := clouds.Prices("digitalocean").Sizes["s-2vcpu-4gb"]
	// 18 not run at 2 nodes each, the resized one from 3 to 2; the failed one not priced.
	before, after := 18*2*price+3*price, 19*2*price
	want := fmt.Sprintf("Monthly cost: %s → %s/month (%s), 1 stack not priced.", usd(before, before, false),
		usd(after, after, false), usd(-price, -price, true))
	if got := FleetSummary(r, 0); !strings.Contains(got, want) {
		t.Errorf("the summary says:\n%s\nwant in it:\n%s", got, want)
	}
}

func TestUSDSaysThousandsAndTheSignOfAChange(t *testing.T) {
	tests := []struct {
		low, high float64
		signed    bool
		want      string
	}{
		{96000, 96000, false, "$96,000.00"},
		{48, 48, true, "+$48.00"},
		{-1234.5, -1234.5, true, "-$1,234.50"},
		{0, 0, false, "$0.00"},
		{480, 1200, false, "$480.00 to $1,200.00"},
	}
	for _, tt := range tests {
		if got := usd(tt.low, tt.high, tt.signed); got != tt.want {
			t.Errorf("usd(%v, %v, %v) = %q, want %q", tt.low, tt.high, tt.signed, got, tt.want)
		}
	}
}

// A fleet's engine streams are not shown as they run: each stack's last lines are kept, redacted,
// for the row of a stack that fails; one stack's, and a fleet's with -v, are shown as they come.
func TestAFleetsStreamsAreKeptForItsRowsAndOneStacksShown(t *testing.T) {
	const secret = "s3cret-passphrase"
	target := deploytarget.Target{Kind: kinds.Kind{Project: "kind"}, Stack: "a"}
	tests := []struct {
		name            string
		stacks          int
		verbose, quiet  bool
		shown, keptTail bool
	}{
		{"one stack is shown as it runs", 1, false, false, true, false},
		{"a fleet's are kept for its rows", 20, false, false, false, true},
		{"a fleet's with -v are shown", 20, true, false, true, false},
		{"a fleet's with --quiet are kept, not shown", 20, false, true, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			s := &Streams{W: &stderr, Mu: &sync.Mutex{}, Redactor: redact.New(secret), Verbose: tt.verbose, Quiet: tt.quiet}
			w := s.For(tt.stacks)(target)
			for i := 1; i <= 12; i++ {
				fmt.Fprintf(w, "line %d of %s\n", i, secret)
			}
			fmt.Fprint(w, "error: the last, unfinished")
			s.Flush()
			if shown := strings.Contains(stderr.String(), "line 1 of"); shown != tt.shown {
				t.Errorf("shown = %v, want %v:\n%s", shown, tt.shown, stderr.String())
			}
			tail := s.Tail(target.Key())
			if kept := len(tail) > 0; kept != tt.keptTail {
				t.Fatalf("tail kept = %v, want %v: %q", kept, tt.keptTail, tail)
			}
			if tt.keptTail && (len(tail) != TailLines || tail[len(tail)-1] != "error: the last, unfinished" || tail[0] != "line 6 of [redacted]") {
				t.Errorf("the tail is %q, want the last %d lines, redacted, the unfinished one last", tail, TailLines)
			}
			if strings.Contains(stderr.String()+strings.Join(tail, "\n"), secret) {
				t.Errorf("the progress says the secret")
			}
		})
	}
}
