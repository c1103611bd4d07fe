package main

import (
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
	"sigs.k8s.io/yaml"
)

// --report-file's rows are the -o json report's stacks, the same run's, in the same order, in
// both formats; and the file is written when a stack fails too.
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
