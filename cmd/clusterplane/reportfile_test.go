package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	validator "github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"
)

// --report-file's rows are the -o json report's stacks, the same run's, in the same order, in
// both formats; and the file is written when a stack fails too.
// Promise: report-file-written-whole
func TestTheReportFileRowsAgreeWithTheJSONReport(t *testing.T) {
	b := deploytest.New()
	dir := fleet(t)
	deployed(t, b, dir)
	edit(t, dir, "pool.yaml", "nodeCount: 2", "nodeCount: 3")
	for _, command := range []string{"status", "preview", "drift", "refresh"} {
		t.Run(command, func(t *testing.T) {
			asJSON, asCSV := filepath.Join(t.TempDir(), "fleet.json"), filepath.Join(t.TempDir(), "fleet.csv")
			// The cluster's preview fails, and the pool is skipped: the file is written all the same.
			fail := func() {
				if command == "preview" {
					b.Fail("digitaloceankubernetescluster/platform-prod", "preview", &stackstate.EngineError{Command: "preview", Cause: "503 Service Unavailable"})
				}
			}
			fail()
			r := deployRun(t, b, strings.NewReader(""), false, command, dir, "-o", "json", "--report-file", asJSON)
			fail()
			deployRun(t, b, strings.NewReader(""), false, command, dir, "--report-file", asCSV)
			var report runreport.Report
			if err := json.Unmarshal([]byte(r.stdout), &report); err != nil {
				t.Fatalf("exit %d, -o json: %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
			}
			if command == "preview" && report.Summary[outcome.Failed] != 1 {
				t.Fatalf("the preview did not fail as set up: %v", report.Summary)
			}
			var rows []map[string]any
			if err := json.Unmarshal([]byte(readFile(t, asJSON)), &rows); err != nil {
				t.Fatalf("the JSON report file: %v", err)
			}
			records, err := csv.NewReader(strings.NewReader(readFile(t, asCSV))).ReadAll()
			if err != nil {
				t.Fatalf("the CSV report file: %v", err)
			}
			if len(rows) != len(report.Stacks) || len(records) != len(report.Stacks)+1 {
				t.Fatalf("%d JSON rows, %d CSV lines for %d stacks", len(rows), len(records), len(report.Stacks))
			}
			for i, s := range report.Stacks {
				want := map[string]string{"command": command, "file": s.File, "kind": s.Kind, "stack": s.Stack, "outcome": string(s.Outcome),
					"reason": s.Reason, "error": s.Error, "notRun": fmt.Sprint(s.NotRun)}
				if s.Status != nil {
					want["ready"], want["drifted"] = s.Status.Condition("Ready").Status, s.Status.Condition("Drifted").Status
					want["generation"] = s.Status.Generation
				}
				for column, value := range want {
					if got := fmt.Sprint(or(rows[i][column], "")); got != value {
						t.Errorf("stack %d %s: the JSON file has %q, -o json %q", i, column, got, value)
					}
					if got := records[i+1][index(records[0], column)]; got != value {
						t.Errorf("stack %d %s: the CSV file has %q, -o json %q", i, column, got, value)
					}
				}
			}
		})
	}
}

func or(v, otherwise any) any {
	if v == nil {
		return otherwise
	}
	return v
}

func index(columns []string, name string) int {
	for i, c := range columns {
		if c == name {
			return i
		}
	}
	return -1
}

// A report file of a format it is not written in is refused as a mistake of the command line
// (exit 2), naming the flag and the file, before any stack is read.
// Promise: report-file-other-extension-refused
func TestAReportFileNamedInAnotherFormatIsRefusedBeforeAnythingRuns(t *testing.T) {
	b := deploytest.New()
	dir := fleet(t)
	report := filepath.Join(t.TempDir(), "fleet.yaml")
	for _, command := range []string{"status", "drift", "preview", "up", "destroy", "refresh"} {
		r := deployRun(t, b, strings.NewReader(""), false, command, dir, "--yes="+fmt.Sprint(command == "up" || command == "destroy"), "--report-file", report)
		if command != "up" && command != "destroy" {
			r = deployRun(t, b, strings.NewReader(""), false, command, dir, "--report-file", report)
		}
		if r.code != exitcode.Usage || !strings.Contains(r.stderr, "--report-file "+report) {
			t.Errorf("%s: exit %d, want 2 naming the flag and the file\n%s", command, r.code, r.stderr)
		}
	}
	if calls := b.Calls(); len(calls) > 0 {
		t.Errorf("the engine ran: %v", calls)
	}
	if _, err := os.Stat(report); err == nil {
		t.Error("a report file was written")
	}
}

// status -o yaml is the JSON report as YAML, each stack's detail in it, as kubectl's -o yaml.
func TestStatusInYAMLIsTheJSONReport(t *testing.T) {
	b := deploytest.New()
	dir := fleet(t)
	deployed(t, b, dir)
	asJSON := deployRun(t, b, strings.NewReader(""), false, "status", dir, "-o", "json")
	asYAML := deployRun(t, b, strings.NewReader(""), false, "status", dir, "-o", "yaml")
	want, err := yaml.JSONToYAML([]byte(asJSON.stdout))
	// Only the time each stack took differs between the two runs.
	took := regexp.MustCompile(`seconds: [0-9.e-]+`)
	if got := took.ReplaceAllString(asYAML.stdout, "seconds: S"); err != nil || asYAML.code != exitcode.OK || got != took.ReplaceAllString(string(want), "seconds: S") {
		t.Errorf("status -o yaml = %d (%v):\n%s\nwant:\n%s", asYAML.code, err, asYAML.stdout, want)
	}
	if !strings.Contains(asYAML.stdout, "apiVersion: clusterplane.dev/report/v1") || !strings.Contains(asYAML.stdout, "observedGeneration:") {
		t.Errorf("status -o yaml has no report:\n%s", asYAML.stdout)
	}
}

// Each row of --report-file says, for every field that differs, what the cloud has, what the
// manifest says and what the stack's last up applied, and what the stack costs a month before and
// after: a portal reads the file alone, without the -o json report. The run below is the same
// for each command: the pool's manifest asks 3 nodes where the last up applied 2 and the cloud
// runs 4, and the cluster's tags were edited in the console. Every JSON file is checked against the
// committed schema, which must be the one the code embeds.
func TestTheReportFileHoldsEachDifferingFieldsValuesAndTheCostBeforeAndAfter(t *testing.T) {
	schema := reportFileSchema(t)
	const poolStack, clusterStack = "digitaloceankubernetesnodepool/workers", "digitaloceankubernetescluster/platform-prod"
	tests := []struct {
		command string
		args    []string
		// beforeNodes is the pool's node count monthlyCostBefore prices: the cloud's for drift,
		// what the last up applied for preview and up (their delta is the manifest's change).
		beforeNodes float64
	}{
		{"drift", nil, 4},
		{"preview", nil, 2},
		{"up", []string{"--yes"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			// writes runs the command over a fleet set up as above, writing the report file file.
			writes := func(file string) {
				b := deploytest.New()
				dir := fleet(t)
				deployed(t, b, dir)
				edit(t, dir, "pool.yaml", "nodeCount: 2", "nodeCount: 3")
				b.EditRefreshed(poolStack, "digitalocean:index/kubernetesNodePool:KubernetesNodePool", "workers", "nodeCount", float64(4), float64(4))
				b.Edit(clusterStack, "digitalocean:index/kubernetesCluster:KubernetesCluster", "platform", "tags", []any{"edited-in-the-console"})
				args := append([]string{tt.command, dir, "--report-file", file}, tt.args...)
				if r := deployRun(t, b, strings.NewReader(""), false, args...); r.code != exitcode.OK && r.code != exitcode.Blocked {
					t.Fatalf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
				}
			}
			asJSON, asCSV := filepath.Join(t.TempDir(), "fleet.json"), filepath.Join(t.TempDir(), "fleet.csv")
			writes(asJSON)
			writes(asCSV)
			rows := validRows(t, schema, readFile(t, asJSON))
			pool, cluster := rowOf(t, rows, poolStack), rowOf(t, rows, clusterStack)
			nodes := difference(t, pool, "spec.nodeCount")
			if want := map[string]any{"field": "spec.nodeCount", "cloud": 4.0, "manifest": 3.0, "recorded": 2.0}; fmt.Sprint(nodes) != fmt.Sprint(want) {
				t.Errorf("the pool's node count reads %v, want %v", nodes, want)
			}
			if tags := difference(t, cluster, "spec.tags"); fmt.Sprint(tags["cloud"]) != "[edited-in-the-console]" {
				t.Errorf("the cluster's tags read %v, want the cloud's [edited-in-the-console]", tags)
			}
			for _, row := range rows {
				if row["monthlyCost"] == nil {
					t.Errorf("%s: no monthlyCost", row["stack"])
				}
			}
			after, before := money(t, pool, "monthlyCost"), money(t, pool, "monthlyCostBefore")
			if after == 0 || after*tt.beforeNodes != before*3 {
				t.Errorf("the pool costs %v before and %v after: want them as %v nodes to 3", before, after, tt.beforeNodes)
			}
			records, err := csv.NewReader(strings.NewReader(readFile(t, asCSV))).ReadAll()
			if err != nil || len(records) != len(rows)+1 {
				t.Fatalf("the CSV report file: %d lines, %v", len(records), err)
			}
			column := index(records[0], "differences")
			if column < 0 {
				t.Fatalf("the CSV report file has no differences column: %v", records[0])
			}
			for i, row := range rows {
				var differences []any
				if err := json.Unmarshal([]byte(records[i+1][column]), &differences); err != nil {
					t.Fatalf("%s: the CSV's differences are no JSON: %v", row["stack"], err)
				}
				if fmt.Sprint(differences) != fmt.Sprint(row["differences"]) {
					t.Errorf("%s: the CSV's differences %v, the JSON's %v", row["stack"], differences, row["differences"])
				}
				for _, column := range []string{"monthlyCostMin", "monthlyCostMax"} {
					if records[i+1][index(records[0], column)] == "" {
						t.Errorf("%s: no %s in the CSV", row["stack"], column)
					}
				}
			}
		})
	}
}

// reportFileSchema is the report file's JSON Schema as committed in schemas/, compiled; the test
// fails when it is not the one the code embeds (tools/schemagen copies it there).
func reportFileSchema(t *testing.T) *validator.Schema {
	t.Helper()
	committed, err := os.ReadFile(filepath.Join("..", "..", "schemas", "reportfile.v1.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, runreport.ReportFileSchema) {
		t.Error("schemas/reportfile.v1.schema.json differs from pkg/deploy/runreport/reportfile.schema.json: run make protos")
	}
	doc, err := validator.UnmarshalJSON(bytes.NewReader(committed))
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
	return schema
}

// validRows are a JSON report file's rows, once the schema accepts the file.
func validRows(t *testing.T, schema *validator.Schema, data string) []map[string]any {
	t.Helper()
	doc, err := validator.UnmarshalJSON(strings.NewReader(data))
	if err != nil {
		t.Fatalf("the JSON report file: %v\n%s", err, data)
	}
	if err := schema.Validate(doc); err != nil {
		t.Errorf("the JSON report file does not validate: %v\n%s", err, data)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(data), &rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

func rowOf(t *testing.T, rows []map[string]any, stack string) map[string]any {
	t.Helper()
	for _, row := range rows {
		if row["stack"] == stack {
			return row
		}
	}
	t.Fatalf("no row of %s in %v", stack, rows)
	return nil
}

// difference is the row's values of field, failing the test when it lists none.
func difference(t *testing.T, row map[string]any, field string) map[string]any {
	t.Helper()
	list, _ := row["differences"].([]any)
	for _, d := range list {
		if d, ok := d.(map[string]any); ok && d["field"] == field {
			return d
		}
	}
	t.Errorf("%s: no difference of %s in %v", row["stack"], field, row)
	return map[string]any{}
}

// money is a cost's low end, failing the test when the row has none.
func money(t *testing.T, row map[string]any, name string) float64 {
	t.Helper()
	m, _ := row[name].(map[string]any)
	low, ok := m["min"].(float64)
	if !ok {
		t.Errorf("%s: no %s in %v", row["stack"], name, row)
	}
	return low
}
