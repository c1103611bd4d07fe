package render

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/deploy/upgraderun"
)

// UpgradeRunPlan prints the waves of upgrade apply --dry-run and every step, numbered in the
// order a run takes them one cluster at a time, up to the cluster a run stops at
// (upgraderun.Stops); the clusters after it are named as not reached.
func UpgradeRunPlan(w io.Writer, waves []upgrade.Wave) {
	n := 0
	stop := ""
	for _, wave := range waves {
		fmt.Fprintf(w, "wave %s: %d %s\n", wave.Name, len(wave.Plans), plural(len(wave.Plans), "cluster", "clusters"))
		for _, p := range wave.Plans {
			switch {
			case stop != "":
				fmt.Fprintf(w, "  %s (%s): not reached: the run stops at %s\n", p.Name, p.File, stop)
				continue
			case p.Blocked():
				fmt.Fprintf(w, "  %s (%s): blocked: %s\n", p.Name, p.File, p.Blockers[0])
			case upgraderun.Stops(p):
				fmt.Fprintf(w, "  %s (%s): not running: %s\n", p.Name, p.File, strings.Join(p.Notes, "; "))
			case len(p.Steps) == 0:
				fmt.Fprintf(w, "  %s (%s): at %s, its goal\n", p.Name, p.File, p.Running)
			}
			if upgraderun.Stops(p) {
				stop = p.Name
				continue
			}
			for _, s := range p.Steps {
				n++
				fmt.Fprintf(w, "  %d. %s (%s): %s → %s\n", n, p.Name, p.File, s.From, s.To)
			}
		}
	}
	if stop != "" {
		fmt.Fprintf(w, "%d %s, then the run stops at %s; nothing changed (--dry-run)\n", n, plural(n, "step", "steps"), stop)
		return
	}
	fmt.Fprintf(w, "%d %s; nothing changed (--dry-run)\n", n, plural(n, "step", "steps"))
}

// UpgradeRunSummary prints a rollout's clusters, what stopped it and its totals.
func UpgradeRunSummary(w io.Writer, r upgraderun.Report) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WAVE\tCLUSTER\tFILE\tFROM\tRUNNING\tGOAL\tSTEPS TAKEN\tOUTCOME")
	for _, wave := range r.Waves {
		for _, c := range wave.Clusters {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", wave.Name, c.Name, c.File, dash(c.From), dash(c.Running), c.Goal, c.Taken(), c.Outcome)
		}
	}
	_ = tw.Flush()
	done, total, steps := r.Done()
	untouched, resumed := 0, 0
	for _, wave := range r.Waves {
		for _, c := range wave.Clusters {
			if c.Outcome == upgraderun.Untouched {
				untouched++
			}
			for _, s := range c.Steps {
				if s.Outcome == upgraderun.StepResumed {
					resumed++
				}
			}
		}
	}
	if r.Stop != upgraderun.NotStopped {
		fmt.Fprintf(w, "stopped (%s): %s\n", r.Stop, r.StopWhy)
	}
	for _, u := range r.Unchecked {
		fmt.Fprintf(w, "let through with its removed APIs unchecked (--allow-unchecked-apis): %s\n", u)
	}
	earlier := ""
	if resumed > 0 {
		// A step an earlier run sent (before a kill or Ctrl-C) and this one waited for.
		earlier = fmt.Sprintf(" (%d sent by an earlier run and waited for)", resumed)
	}
	fmt.Fprintf(w, "%d of %d clusters at their goal, %d stopped, %d untouched; %d %s taken in %s%s\n",
		done, total, total-done-untouched, untouched, steps, plural(steps, "step", "steps"), r.Ended.Sub(r.Started).Round(time.Second), earlier)
}

// UpgradeRunFile is a rollout's report as --report-file writes it, by the file's extension:
// JSON (the report whole), CSV (a row a step, and a row for a cluster that took none) or
// Markdown (a table of the same rows, then what stopped the rollout).
func UpgradeRunFile(path string, r upgraderun.Report) ([]byte, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		data, err := json.MarshalIndent(r, "", "  ")
		return append(data, '\n'), errors.Wrap(err, "encode the report file")
	case ".csv":
		var b bytes.Buffer
		cw := csv.NewWriter(&b)
		_ = cw.Write(upgradeRunColumns)
		for _, row := range upgradeRunRows(r) {
			_ = cw.Write(row)
		}
		cw.Flush()
		return b.Bytes(), errors.Wrap(cw.Error(), "encode the report file")
	case ".md", ".markdown":
		var b bytes.Buffer
		b.WriteString("| " + strings.Join(upgradeRunColumns, " | ") + " |\n")
		b.WriteString(strings.Repeat("| --- ", len(upgradeRunColumns)) + "|\n")
		for _, row := range upgradeRunRows(r) {
			for i := range row {
				row[i] = strings.ReplaceAll(row[i], "|", `\|`)
			}
			b.WriteString("| " + strings.Join(row, " | ") + " |\n")
		}
		if r.Stop != upgraderun.NotStopped {
			fmt.Fprintf(&b, "\nStopped (%s): %s\n", r.Stop, r.StopWhy)
		}
		return b.Bytes(), nil
	}
	return nil, UpgradeRunFormat(path)
}

// UpgradeRunFormat tells, before a rollout runs, whether UpgradeRunFile writes a file of path's
// extension, and when not, which it writes.
func UpgradeRunFormat(path string) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json", ".csv", ".md", ".markdown":
		return nil
	}
	return errors.Errorf("--report-file %s: give a .json, .csv or .md file", path)
}

var upgradeRunColumns = []string{"wave", "cluster", "file", "path", "outcome", "reason", "stepFrom", "stepTo", "stepStart", "stepEnd", "stepOutcome", "stepError"}

func upgradeRunRows(r upgraderun.Report) [][]string {
	var rows [][]string
	for _, wave := range r.Waves {
		for _, c := range wave.Clusters {
			head := []string{wave.Name, c.Name, c.File, strings.Join(c.Path, " "), c.Outcome, c.Reason}
			if len(c.Steps) == 0 {
				rows = append(rows, append(head, "", "", "", "", "", ""))
			}
			for _, s := range c.Steps {
				rows = append(rows, append(append([]string{}, head...), s.From, s.To,
					s.Start.UTC().Format(time.RFC3339), s.End.UTC().Format(time.RFC3339), s.Outcome, s.Error))
			}
		}
	}
	return rows
}
