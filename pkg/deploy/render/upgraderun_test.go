package render_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/deploy/render"
	"github.com/clusterplane/clusterplane/pkg/deploy/upgraderun"
)

func rollout() upgraderun.Report {
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	return upgraderun.Report{Stop: upgraderun.Failed, StopWhy: "staging (s.yaml): the cloud reports the cluster degraded at 1.31.9-do.2",
		Started: at, Ended: at.Add(time.Minute), Unchecked: []string{},
		Waves: []upgraderun.WaveReport{
			{Name: "development", Clusters: []upgraderun.ClusterReport{{Name: "dev", File: "d.yaml", From: "1.31.9-do.2", Running: "1.32.2-do.0",
				Goal: "1.32.2-do.0", Path: []string{"1.32.2-do.0"}, Outcome: upgraderun.Reached,
				Steps: []upgraderun.Step{{From: "1.31.9-do.2", To: "1.32.2-do.0", Start: at, End: at.Add(5 * time.Second), Outcome: upgraderun.StepDone}}}}},
			{Name: "production", Clusters: []upgraderun.ClusterReport{{Name: "prod", File: "p.yaml", From: "1.31.9-do.2", Running: "1.31.9-do.2",
				Goal: "1.32.2-do.0", Path: []string{"1.32.2-do.0"}, Outcome: upgraderun.Untouched, Steps: []upgraderun.Step{}}}},
		}}
}

func TestTheSummarySaysHowManyStepsAnEarlierRunSent(t *testing.T) {
	r := rollout()
	var b bytes.Buffer
	render.UpgradeRunSummary(&b, r)
	if !strings.Contains(b.String(), "; 1 step taken in 1m0s\n") {
		t.Errorf("summary:\n%s", b.String())
	}
	r.Waves[0].Clusters[0].Steps[0].Outcome = upgraderun.StepResumed
	b.Reset()
	render.UpgradeRunSummary(&b, r)
	if !strings.Contains(b.String(), "; 1 step taken in 1m0s (1 sent by an earlier run and waited for)\n") {
		t.Errorf("summary with a resumed step:\n%s", b.String())
	}
}

func TestARolloutsReportFileIsWrittenByItsExtension(t *testing.T) {
	cases := []struct {
		file  string
		check func(t *testing.T, data []byte)
	}{
		{"r.json", func(t *testing.T, data []byte) {
			var r upgraderun.Report
			if err := json.Unmarshal(data, &r); err != nil || r.Stop != upgraderun.Failed || len(r.Waves) != 2 || r.Waves[0].Clusters[0].Steps[0].Outcome != "done" {
				t.Errorf("the JSON does not read back as the report (%v): %s", err, data)
			}
		}},
		{"r.csv", func(t *testing.T, data []byte) {
			rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
			if err != nil || len(rows) != 3 || rows[1][1] != "dev" || rows[1][7] != "1.32.2-do.0" || rows[2][4] != "untouched" {
				t.Errorf("the CSV has a row a step and one for the cluster that took none (%v): %q", err, rows)
			}
		}},
		{"r.md", func(t *testing.T, data []byte) {
			if !strings.Contains(string(data), "| development | dev | d.yaml |") || !strings.Contains(string(data), "Stopped (failed): staging") {
				t.Errorf("the Markdown lacks its rows or what stopped the rollout:\n%s", data)
			}
		}},
	}
	for _, tc := range cases {
		data, err := render.UpgradeRunFile(tc.file, rollout())
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		tc.check(t, data)
	}
	if _, err := render.UpgradeRunFile("r.txt", rollout()); err == nil || !strings.Contains(err.Error(), "--report-file r.txt: give a .json, .csv or .md file") {
		t.Errorf("a .txt report file: %v", err)
	}
}

func TestADryRunListsStepsUpToTheClusterARunStopsAt(t *testing.T) {
	waves := []upgrade.Wave{
		{Name: "development", Plans: []upgrade.Assessment{
			{Name: "a", File: "a.yaml", Running: "1.31.9-do.2", Target: "1.32.2-do.0", Steps: []upgrade.Step{{From: "1.31.9-do.2", To: "1.32.2-do.0"}}},
			{Name: "b", File: "b.yaml", Running: "1.31.9-do.2", Target: "1.32.2-do.0", Blockers: []string{"FlowSchema x uses a removed API"}},
		}},
		{Name: "production", Plans: []upgrade.Assessment{
			{Name: "c", File: "c.yaml", Running: "1.31.9-do.2", Target: "1.32.2-do.0", Steps: []upgrade.Step{{From: "1.31.9-do.2", To: "1.32.2-do.0"}}},
		}},
	}
	var out bytes.Buffer
	render.UpgradeRunPlan(&out, waves)
	want := "wave development: 2 clusters\n  1. a (a.yaml): 1.31.9-do.2 → 1.32.2-do.0\n  b (b.yaml): blocked: FlowSchema x uses a removed API\n" +
		"wave production: 1 cluster\n  c (c.yaml): not reached: the run stops at b\n1 step, then the run stops at b; nothing changed (--dry-run)\n"
	if out.String() != want {
		t.Errorf("the dry run:\n%s\nwant:\n%s", out.String(), want)
	}
}
