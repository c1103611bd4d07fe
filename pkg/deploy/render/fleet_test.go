package render

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/pulumi/stackrecord"
	validator "github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// update rewrites the golden files from what the code prints now: go test ./pkg/deploy/render/
// -run Golden -update, then read the diff before committing it.
var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// The fleets below are outcome values, as the pipeline hands them to the renderers: no engine, no
// backend. Stack i of a fleet is fleet-NNNN, a DigitalOcean cluster of two s-2vcpu-4gb nodes
// (every fifth a pool of three, labelled team=data), last updated i hours before now.

// now is the time the golden tables' ages are from.
var now = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// fleetTargets are n targets named fleet-0001 to fleet-NNNN.
func fleetTargets(t *testing.T, n int) []deploytarget.Target {
	t.Helper()
	cluster := parsed(t, "DigitalOceanKubernetesCluster", "apiVersion: digitalocean.clusterplane.dev/v1\nkind: DigitalOceanKubernetesCluster\n"+
		"metadata:\n  name: fleet\nspec:\n  clusterName: fleet\n  region: fra1\n  kubernetesVersion: 1.31.1-do.5\n"+
		"  defaultNodePool:\n    size: s-2vcpu-4gb\n    nodeCount: 2\n")
	pool := parsed(t, "DigitalOceanKubernetesNodePool", "apiVersion: digitalocean.clusterplane.dev/v1\nkind: DigitalOceanKubernetesNodePool\n"+
		"metadata:\n  name: data\n  labels:\n    team: data\nspec:\n  nodePoolName: data\n  cluster:\n    value: c-1\n  size: s-2vcpu-4gb\n  nodeCount: 3\n")
	targets := make([]deploytarget.Target, n)
	for i := range targets {
		name := fmt.Sprintf("fleet-%04d", i+1)
		targets[i] = deploytarget.NewTarget("fleet/"+name+".yaml", cluster.kind, cluster.input, name)
		if (i+1)%5 == 0 {
			targets[i] = deploytarget.NewTarget("fleet/"+name+".yaml", pool.kind, pool.input, name)
		}
	}
	return targets
}

type parsedInput struct {
	kind  kinds.Kind
	input proto.Message
}

// parsed is a manifest of kind read from text.
func parsed(t *testing.T, kind, text string) parsedInput {
	t.Helper()
	k, ok := registry.Kinds().ByName(kind)
	if !ok {
		t.Fatalf("no kind %s", kind)
	}
	in := k.NewStackInput()
	if err := stackinput.Parse([]byte(text), kind+".yaml", in); err != nil {
		t.Fatal(err)
	}
	return parsedInput{k, in}
}

// statusFleet is status's outcomes for n stacks: those in drifted have drifted (status --drift),
// those in notReady changed since their last up, those in failed could not be read.
func statusFleet(t *testing.T, n int, drifted, notReady, failed []int) []outcome.Outcome {
	outcomes := make([]outcome.Outcome, n)
	for i, target := range fleetTargets(t, n) {
		gen := deploytarget.Generation(target.Input)
		// Recorded: the stack runs what its manifest asks, as status reads it from the state.
		st := &outcome.StackStatus{Stack: target.Key(), Generation: gen, ObservedGeneration: gen, Outputs: map[string]any{}, Recorded: target.Input,
			LastUpdate: &stackstate.Update{Operation: "update", Result: "succeeded", Ended: now.Add(-time.Duration(i+1) * time.Hour).Format(time.RFC3339)},
			Conditions: []outcome.Condition{{Type: "Ready", Status: "True", Reason: "Deployed", Message: "the last update succeeded"},
				{Type: "Drifted", Status: "False", Reason: "InSync", Message: "the cloud matches the manifest"}}}
		if contains(notReady, i) {
			st.ObservedGeneration = "0123456789ab"
			st.Conditions[0] = outcome.Condition{Type: "Ready", Status: "False", Reason: "ManifestChanged",
				Message: "the manifest changed since the last up (spec.defaultNodePool.nodeCount); run up"}
		}
		if contains(drifted, i) {
			st.Conditions[1] = outcome.Condition{Type: "Drifted", Status: "True", Reason: "ChangesPending",
				Message: "up would update 1 (spec.tags: the cloud has [\"edited\"], the manifest [])"}
		}
		outcomes[i] = outcome.Outcome{Target: target, Status: outcome.Done, Reason: "status", Report: st, Took: 10 * time.Millisecond}
		if contains(failed, i) {
			outcomes[i] = outcome.Outcome{Target: target, Status: outcome.Failed, Reason: "failed", Err: errors.New("read the stack's history: 503 Service Unavailable")}
		}
	}
	return outcomes
}

// driftFleet is drift's outcomes for n stacks, those in drifted drifted in spec.tags; the others
// the fleet scan found as their last up left them.
func driftFleet(t *testing.T, n int, drifted []int) []outcome.Outcome {
	outcomes := make([]outcome.Outcome, n)
	for i, target := range fleetTargets(t, n) {
		outcomes[i] = outcome.Outcome{Target: target, Status: outcome.Done, NotRun: true, Verdict: outcome.Unchanged, Reason: deploy.Unchanged}
		if contains(drifted, i) {
			outcomes[i] = outcome.Outcome{Target: target, Status: outcome.Drifted, Reason: "up would update 1", Took: 2 * time.Second,
				Result: &stackstate.Result{Changes: map[string]int{"update": 1, "same": 2}},
				Drift:  []outcome.FieldDrift{{Field: "spec.tags", Live: []any{"edited-in-the-console"}, Manifest: []any{}}}}
		}
	}
	return outcomes
}

// previewFleet is preview's outcomes for n stacks: those in grown would grow their pool from 2
// nodes to 3, the others were not run, unchanged.
func previewFleet(t *testing.T, n int, grown []int) []outcome.Outcome {
	outcomes := driftFleet(t, n, nil)
	for _, i := range grown {
		o := &outcomes[i]
		// The stack recorded the manifest its last up deployed: the cost before is that one's.
		recorded, err := stackrecord.Manifest(o.Target.Input)
		if err != nil {
			t.Fatal(err)
		}
		grown := proto.Clone(o.Target.Input)
		pools := 0
		eachPool(grown.ProtoReflect(), func(pool protoreflect.Message) {
			if pools++; pools == 1 {
				pool.Set(pool.Descriptor().Fields().ByJSONName(kindfield.SpecNodeCount), protoreflect.ValueOfInt32(int32(protofield.Int(pool, kindfield.SpecNodeCount)+1)))
			}
		})
		o.Target.Input = grown
		previous := map[string]any{deploytarget.GenerationOutput: deploytarget.Generation(o.Target.Input), deploytarget.ManifestOutput: recorded}
		*o = outcome.Outcome{Target: o.Target, Status: outcome.Done, Reason: "1 update, 2 same", Took: 3 * time.Second,
			Result: &stackstate.Result{Changes: map[string]int{"update": 1, "same": 2}, Previous: previous}}
	}
	return outcomes
}

func contains(s []int, i int) bool {
	for _, v := range s {
		if v == i {
			return true
		}
	}
	return false
}

// golden compares got with testdata/name, or writes it there with -update. A golden over 1 MB
// (a thousand stacks' status in JSON) is kept gzipped, as testdata/name.gz, and compared byte for
// byte all the same: the repository tracks no file over 1 MB (make check-tracked).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		data, stale := got, path+".gz"
		if len(got) > maxGolden {
			data, stale, path = gzipped(t, got), path, path+".gz"
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(stale); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		want, err = gunzipped(path + ".gz")
	}
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what is rendered now (run with -update, and read the diff):\n--- got\n%s\n--- want\n%s", path, head(got), head(want))
	}
}

// maxGolden is the largest golden kept as it is; a larger one is kept gzipped.
const maxGolden = 1 << 20

func gzipped(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func gunzipped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// head is the first lines of a long output, enough to see where it differs.
func head(b []byte) string {
	lines := strings.SplitAfter(string(b), "\n")
	if len(lines) > 40 {
		return strings.Join(lines[:40], "") + "...\n"
	}
	return string(b)
}

// sizes are the fleets of the golden files: one stack, a team's 20, a company's 1,000.
var sizes = []int{1, 20, 1000}

func TestGoldenStatusTablesOfOneTwentyAndAThousandStacks(t *testing.T) {
	for _, n := range sizes {
		for _, wide := range []bool{false, true} {
			if wide && n == 1000 {
				continue // the 20 stacks' show the columns; a thousand would only make the file big
			}
			name := fmt.Sprintf("status-%d.golden", n)
			if wide {
				name = fmt.Sprintf("status-%d-wide.golden", n)
			}
			t.Run(name, func(t *testing.T) {
				outcomes := statusFleet(t, n, []int{n / 2}, []int{n - 1}, []int{n / 3})
				if n == 1 {
					outcomes = statusFleet(t, 1, nil, nil, nil)
				}
				v := StatusView{Wide: wide, Now: now}
				var out bytes.Buffer
				v.Text(&out, v.Filter(outcomes), clouds.Prices)
				golden(t, name, out.Bytes())
			})
		}
	}
}

func TestGoldenReportFilesOfOneTwentyAndAThousandStacks(t *testing.T) {
	for _, n := range sizes {
		for _, command := range []operation.Name{operation.Status, operation.Drift, operation.Preview} {
			for _, ext := range []string{"json", "csv"} {
				name := fmt.Sprintf("reportfile-%s-%d.%s.golden", command, n, ext)
				t.Run(name, func(t *testing.T) {
					outcomes := commandFleet(t, command, n)
					data, err := ReportFile("fleet."+ext, Report(command, outcomes, clouds.Prices), outcomes, clouds.Prices, strings.TrimSpace)
					if err != nil {
						t.Fatal(err)
					}
					golden(t, name, data)
				})
			}
		}
	}
}

// commandFleet is a fleet of n stacks as command leaves it, a few stacks of it differing.
func commandFleet(t *testing.T, command operation.Name, n int) []outcome.Outcome {
	some := []int{0, n / 2, n - 1}
	switch command {
	case "status":
		return statusFleet(t, n, some, []int{n / 3}, nil)
	case "drift":
		return driftFleet(t, n, some)
	}
	return previewFleet(t, n, some)
}

func TestGoldenMarkdownOfOneTwentyAndAThousandStacks(t *testing.T) {
	for _, n := range sizes {
		for _, command := range []operation.Name{operation.Drift, operation.Preview} {
			name := fmt.Sprintf("markdown-%s-%d.golden", command, n)
			t.Run(name, func(t *testing.T) {
				outcomes := commandFleet(t, command, n)
				var out bytes.Buffer
				if err := Markdown(&out, Report(command, outcomes, clouds.Prices)); err != nil {
					t.Fatal(err)
				}
				golden(t, name, out.Bytes())
			})
		}
	}
}

// issue 66: drift -o markdown of 500 stacks was about 62 KB, a row for every clean one.
func TestTheMarkdownOfAThousandStacksWithTenDriftedIsUnder8KBAndNamesTheTen(t *testing.T) {
	drifted := []int{3, 97, 150, 333, 400, 512, 640, 777, 901, 999}
	outcomes := driftFleet(t, 1000, drifted)
	var out bytes.Buffer
	if err := Markdown(&out, Report("drift", outcomes, clouds.Prices)); err != nil {
		t.Fatal(err)
	}
	if out.Len() >= 8*1024 {
		t.Errorf("the comment is %d bytes, want under 8 KB", out.Len())
	}
	for _, i := range drifted {
		if name := fmt.Sprintf("| `fleet/fleet-%04d.yaml` |", i+1); !strings.Contains(out.String(), name) {
			t.Errorf("the comment does not list %s", name)
		}
	}
	if !strings.Contains(out.String(), "<details><summary>990 stacks unchanged</summary>") {
		t.Errorf("the comment does not count the 990 unchanged stacks in a collapsed <details>:\n%s", out.String())
	}
}

// Promise: status-filters-exit-with-shown-stacks
func TestStatusOnlyDriftedOfAThousandStacksWithThreeDriftedPrintsThreeRowsAndTheHeader(t *testing.T) {
	outcomes := statusFleet(t, 1000, []int{10, 500, 989}, []int{20, 30}, []int{40})
	tests := []struct {
		view StatusView
		rows []string
	}{
		{StatusView{Only: "drifted"}, []string{"fleet-0011", "fleet-0501", "fleet-0990"}},
		{StatusView{Only: "not-ready"}, []string{"fleet-0021", "fleet-0031", "fleet-0041"}},
		{StatusView{Only: "failed"}, []string{"fleet-0041"}},
		{StatusView{Only: "drifted", Selector: "team=data"}, []string{"fleet-0990"}},
		{StatusView{Only: "drifted", Kinds: []string{"do-cluster"}}, []string{"fleet-0011", "fleet-0501"}},
		{StatusView{Only: "drifted", Selector: "!team"}, []string{"fleet-0011", "fleet-0501"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("only %s, -l %q, kinds %v", tt.view.Only, tt.view.Selector, tt.view.Kinds), func(t *testing.T) {
			var out bytes.Buffer
			tt.view.Text(&out, tt.view.Filter(outcomes), clouds.Prices)
			lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
			if len(lines) != len(tt.rows)+1 || !strings.HasPrefix(lines[0], "STACK") {
				t.Fatalf("want the header and %d rows, got:\n%s", len(tt.rows), out.String())
			}
			for i, stack := range tt.rows {
				if !strings.Contains(lines[i+1], "/"+stack+" ") {
					t.Errorf("row %d is not %s:\n%s", i+1, stack, out.String())
				}
			}
		})
	}
}

func TestStatusSortsByTheColumnAskedAndRefusesAnUnknownOne(t *testing.T) {
	outcomes := statusFleet(t, 6, nil, nil, nil)
	v := StatusView{SortBy: "nodes", Now: now}
	if err := v.Validate(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	v.Text(&out, v.Filter(outcomes), clouds.Prices)
	lines := strings.Split(out.String(), "\n")
	// fleet-0005 is the pool of three: the clusters of two come first, in the files' order.
	if !strings.Contains(lines[5], "fleet-0006") || !strings.Contains(lines[6], "fleet-0005") {
		t.Errorf("--sort-by nodes:\n%s", out.String())
	}
	for _, bad := range []StatusView{{SortBy: "colour"}, {Only: "broken"}, {Selector: "a=b=c"}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func TestTheReportFileValidatesAgainstItsSchemaForEveryCommand(t *testing.T) {
	doc, err := validator.UnmarshalJSON(bytes.NewReader(runreport.ReportFileSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := validator.NewCompiler()
	if err := c.AddResource("reportfile.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("reportfile.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, command := range []operation.Name{operation.Status, operation.Drift, operation.Preview} {
		outcomes := commandFleet(t, command, 20)
		if command == operation.Status {
			outcomes = statusFleet(t, 20, []int{1}, []int{2}, []int{3})
		}
		data, err := ReportFile("fleet.json", Report(command, outcomes, clouds.Prices), outcomes, clouds.Prices, strings.TrimSpace)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := validator.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v\n%s", command, err, data)
		}
		if err := schema.Validate(rows); err != nil {
			t.Errorf("%s's report file does not validate: %v", command, err)
		}
	}
}

func TestTheReportFilesJSONAndCSVHoldTheSameRows(t *testing.T) {
	outcomes := statusFleet(t, 20, []int{1}, []int{2}, []int{3})
	r := Report("status", outcomes, clouds.Prices)
	asJSON, err := ReportFile("fleet.json", r, outcomes, clouds.Prices, strings.TrimSpace)
	if err != nil {
		t.Fatal(err)
	}
	asCSV, err := ReportFile("fleet.csv", r, outcomes, clouds.Prices, strings.TrimSpace)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(asJSON, &rows); err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(bytes.NewReader(asCSV)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != len(rows)+1 {
		t.Fatalf("%d CSV lines for %d JSON rows", len(records), len(rows))
	}
	for i, row := range rows {
		for j, column := range records[0] {
			want, ok := row[column]
			if !ok {
				continue // a cost's min and max, changes: their own encoding, checked by the goldens
			}
			if got := records[i+1][j]; fmt.Sprint(want) != got && !(want == false && got == "false") {
				t.Errorf("row %d %s: CSV %q, JSON %v", i, column, got, want)
			}
		}
	}
}

// Promise: report-file-other-extension-refused
func TestAReportFileOfAnotherExtensionIsRefusedNamingTheFlagAndTheFile(t *testing.T) {
	for _, name := range []string{"fleet.yaml", "fleet", "fleet.txt"} {
		_, err := runreport.ReportFileFormat(name)
		if err == nil || !strings.Contains(err.Error(), "--report-file "+name) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A filter that keeps nothing printed a bare header, and --only drifted without --drift keeps
// nothing whatever the cloud holds: the table says so instead, and why for drifted.
func TestAFilterThatKeepsNoStackSaysSoAndWhyDriftedNeedsDrift(t *testing.T) {
	notChecked := statusFleet(t, 20, nil, nil, nil)
	for _, o := range notChecked {
		o.Report.Conditions[1] = outcome.Condition{Type: "Drifted", Status: "Unknown", Reason: "NotChecked",
			Message: "status reads the backend only"}
	}
	tests := []struct {
		name     string
		view     StatusView
		outcomes []outcome.Outcome
		want     string
	}{
		{"--only drifted without --drift names --drift", StatusView{Only: "drifted"}, notChecked,
			"No stack of the 20 matches --only drifted.\nDrifted is Unknown (NotChecked) for 20 of them: status reads the backend only; status --drift compares the cloud.\n"},
		{"--only not-ready of a ready fleet says none matched", StatusView{Only: "not-ready", Selector: "team=data"}, statusFleet(t, 20, nil, nil, nil),
			"No stack of the 20 matches --only not-ready, -l team=data.\n"},
		{"--only drifted with --drift and none drifted says only that", StatusView{Only: "drifted"}, statusFleet(t, 20, nil, nil, nil),
			"No stack of the 20 matches --only drifted.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			tt.view.Text(&out, tt.view.Filter(tt.outcomes), clouds.Prices)
			if out.String() != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", out.String(), tt.want)
			}
		})
	}
}
