package render

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/pkg/errors"
)

// ReportRow is one stack of --report-file: flat, the same columns for every command, so that CI
// keeps it as an artifact and a portal or a spreadsheet reads it without knowing the command. Its
// values are the -o json report's (runreport.StackReport), the status's conditions, the values of
// each differing field and the manifest's nodes and monthly cost added;
// pkg/deploy/runreport/reportfile.schema.json is its schema.
type ReportRow struct {
	Command   string  `json:"command"`
	File      string  `json:"file"`
	Kind      string  `json:"kind"`
	Stack     string  `json:"stack"`
	Outcome   string  `json:"outcome"`
	Reason    string  `json:"reason"`
	Error     string  `json:"error,omitempty"`
	BlockedBy string  `json:"blockedBy,omitempty"`
	Seconds   float64 `json:"seconds"`
	NotRun    bool    `json:"notRun"`
	// Changes counts the engine's steps by operation; Drift the fields the cloud differs in.
	Changes map[string]int `json:"changes,omitempty"`
	Drift   []string       `json:"drift,omitempty"`
	// Differences are the fields that differ, each with the cloud's, the manifest's and the
	// recorded value (Differences): the names alone do not tell a reader what to do.
	Differences []Difference `json:"differences,omitempty"`
	// Nodes is the manifest's node count ("2–5" autoscaled).
	Nodes string `json:"nodes,omitempty"`
	// MonthlyCost is the manifest's monthly cost, in every command; MonthlyCostBefore what the
	// stack deployed cost (preview, up: what the change is from) or what the cloud runs costs
	// (drift); both nil when not priced (rowCosts).
	MonthlyCost       *Money `json:"monthlyCost,omitempty"`
	MonthlyCostBefore *Money `json:"monthlyCostBefore,omitempty"`
	// Ready and Drifted are status's conditions, with their reasons (status only).
	Ready              string `json:"ready,omitempty"`
	ReadyReason        string `json:"readyReason,omitempty"`
	Drifted            string `json:"drifted,omitempty"`
	DriftedReason      string `json:"driftedReason,omitempty"`
	Generation         string `json:"generation,omitempty"`
	ObservedGeneration string `json:"observedGeneration,omitempty"`
	// LastUpdate is the stack's last update's operation, result and end (status only).
	LastUpdate      string `json:"lastUpdate,omitempty"`
	LastUpdateEnded string `json:"lastUpdateEnded,omitempty"`
}

// Money is a monthly cost in US dollars, Min to Max (equal unless a pool autoscales).
type Money struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// ReportRows are the report's stacks as --report-file's rows; outcomes are the report's (in its
// order), for the manifests' nodes, the differing fields' values and, with prices, the monthly
// costs the report does not hold.
func ReportRows(r runreport.Report, outcomes []outcome.Outcome, prices func(cloud string) cost.Prices) []ReportRow {
	rows := make([]ReportRow, 0, len(r.Stacks))
	for i, s := range r.Stacks {
		row := ReportRow{Command: string(r.Command), File: s.File, Kind: s.Kind, Stack: s.Stack, Outcome: string(s.Outcome), Reason: s.Reason,
			Error: s.Error, BlockedBy: s.BlockedBy, Seconds: s.Seconds, NotRun: s.NotRun, Changes: s.Changes}
		for _, d := range s.Drift {
			row.Drift = append(row.Drift, d.Field)
		}
		// The file's nodes and monthlyCost are the manifest's in every command; status's -o json
		// has the cloud's as recorded beside them (StackStatus.Cost).
		if i < len(outcomes) && outcomes[i].Target.Key() == s.Stack {
			row.Nodes = Nodes(outcomes[i].Target.Input)
			row.Differences = Differences(r.Command, outcomes[i])
			row.MonthlyCostBefore, row.MonthlyCost = rowCosts(r.Command, outcomes[i], prices)
		}
		if s.Cost != nil {
			// Report.Price's figures: what the change is from, and the same manifest's cost.
			row.MonthlyCost, row.MonthlyCostBefore = moneyOf(s.Cost.New), nil
			if !s.Cost.OldNotKnown {
				row.MonthlyCostBefore = moneyOf(s.Cost.Old)
			}
		}
		if st := s.Status; st != nil {
			ready, drifted := st.Condition("Ready"), st.Condition("Drifted")
			row.Ready, row.ReadyReason, row.Drifted, row.DriftedReason = ready.Status, string(ready.Reason), drifted.Status, string(drifted.Reason)
			row.Generation, row.ObservedGeneration = st.Generation, st.ObservedGeneration
			if u := st.LastUpdate; u != nil {
				row.LastUpdate, row.LastUpdateEnded = u.Operation+" "+u.Result, u.Ended
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// ReportFileJSON is the rows as a JSON array, one object a stack, each on its own line: a
// thousand stacks read (and diff, and grep) a line a stack.
func ReportFileJSON(rows []ReportRow) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("[")
	for i, r := range rows {
		data, err := json.Marshal(r)
		if err != nil {
			return nil, errors.Wrap(err, "encode the report file")
		}
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  ")
		b.Write(data)
	}
	if len(rows) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	return b.Bytes(), nil
}

// reportColumns are the CSV's columns, in order: the JSON's names.
var reportColumns = []string{"command", "file", "kind", "stack", "outcome", "reason", "error", "blockedBy", "seconds", "notRun",
	"changes", "drift", "nodes", "monthlyCostMin", "monthlyCostMax", "monthlyCostBeforeMin", "monthlyCostBeforeMax",
	"ready", "readyReason", "drifted", "driftedReason", "generation", "observedGeneration", "lastUpdate", "lastUpdateEnded",
	// Last, so that a reader of the columns by position before it was added reads them still.
	"differences"}

// ReportFileCSV is the rows as CSV with a header, one line a stack: changes as op=count and the
// drifted fields separated by ";", a cost empty when not priced, the differences as the JSON
// file's array (a value may be a list or a map, which no cell format but JSON keeps whole).
func ReportFileCSV(rows []ReportRow) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(reportColumns)
	for _, r := range rows {
		before, after := r.MonthlyCostBefore, r.MonthlyCost
		var differences []byte
		if len(r.Differences) > 0 {
			var err error
			if differences, err = json.Marshal(r.Differences); err != nil {
				return nil, errors.Wrap(err, "encode the report file")
			}
		}
		_ = w.Write([]string{r.Command, r.File, r.Kind, r.Stack, r.Outcome, r.Reason, r.Error, r.BlockedBy,
			strconv.FormatFloat(r.Seconds, 'f', -1, 64), strconv.FormatBool(r.NotRun), counts(r.Changes), strings.Join(r.Drift, ";"),
			r.Nodes, dollars(after, false), dollars(after, true), dollars(before, false), dollars(before, true),
			r.Ready, r.ReadyReason, r.Drifted, r.DriftedReason, r.Generation, r.ObservedGeneration, r.LastUpdate, r.LastUpdateEnded,
			string(differences)})
	}
	w.Flush()
	return b.Bytes(), errors.Wrap(w.Error(), "encode the report file")
}

// counts is the engine's steps by operation as "create=1;update=2", sorted by operation.
func counts(changes map[string]int) string {
	var parts []string
	for _, op := range slices.Sorted(maps.Keys(changes)) {
		parts = append(parts, fmt.Sprintf("%s=%d", op, changes[op]))
	}
	return strings.Join(parts, ";")
}

// dollars is a cost's low (or high) end for a CSV cell, "" when not priced.
func dollars(m *Money, high bool) string {
	if m == nil {
		return ""
	}
	if high {
		return strconv.FormatFloat(m.Max, 'f', 2, 64)
	}
	return strconv.FormatFloat(m.Min, 'f', 2, 64)
}

// ReportFile is --report-file's content for path, JSON or CSV by its extension
// (deploy.ReportFileFormat), every row's words passed through redact first: the caller's
// redactor, cell by cell, so that a secret never reaches the file and the CSV's quoting stays whole.
func ReportFile(path string, r runreport.Report, outcomes []outcome.Outcome, prices func(cloud string) cost.Prices,
	redact func(string) string) ([]byte, error) {
	format, err := runreport.ReportFileFormat(path)
	if err != nil {
		return nil, err
	}
	rows := ReportRows(r, outcomes, prices)
	for i := range rows {
		row := &rows[i]
		row.File, row.Reason, row.Error, row.BlockedBy = redact(row.File), redact(row.Reason), redact(row.Error), redact(row.BlockedBy)
		for j := range row.Differences {
			d := &row.Differences[j]
			d.Cloud, d.Manifest, d.Recorded = redactValue(d.Cloud, redact), redactValue(d.Manifest, redact), redactValue(d.Recorded, redact)
		}
	}
	if format == "csv" {
		return ReportFileCSV(rows)
	}
	return ReportFileJSON(rows)
}
