package render

import (
	"cmp"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
	"github.com/pkg/errors"
	"github.com/spf13/pflag"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"sigs.k8s.io/yaml"
)

// StatusRow is one stack as status's table shows it: what a person scanning a fleet looks for
// (is it Ready, has it drifted, how big is it, what does it cost, when did an up last touch it).
type StatusRow struct {
	File, Stack, Kind string
	// Ready and Drifted are the conditions' statuses (True, False, Unknown), each with its reason;
	// Unknown (NotRead) when status could not read the stack (Failed then says why).
	Ready, Drifted             string
	ReadyReason, DriftedReason outcome.Reason
	// Message is the first condition's message that is not fine (Ready not True, Drifted True).
	Message                        string
	Generation, ObservedGeneration string
	// Nodes and Cost are the node count ("2–5" for an autoscaled pool) and monthly cost of what the
	// cloud runs as the stack last recorded it (its last up or refresh): "-" and nil when it holds
	// nothing or could not be read. ManifestNodes and ManifestCost are the manifest's, which an
	// edit not yet deployed, or a change in the console, makes differ.
	Nodes, ManifestNodes string
	Cost, ManifestCost   *cost.Estimate
	// RecordedNodes and RecordedCost are the record's figures where status read the cloud and
	// found it differing from them: Nodes and Cost are then the cloud's. "" and nil otherwise.
	RecordedNodes string
	RecordedCost  *cost.Estimate
	// LastUpdate is the stack's last update (nil: none); Failed the reason status could not read
	// the stack, "" when it could.
	LastUpdate *stackstate.Update
	Failed     string
	labels     func(key string) string
}

// StatusRows are the rows of status's outcomes, each stack's monthly cost priced with prices
// (nil: not priced).
func StatusRows(outcomes []outcome.Outcome, prices func(cloud string) cost.Prices) []StatusRow {
	rows := make([]StatusRow, 0, len(outcomes))
	for _, o := range outcomes {
		row := StatusRow{File: o.Target.File, Stack: o.Target.Key(), Kind: cmp.Or(o.Target.Short, o.Target.Name),
			Ready: "Unknown", ReadyReason: outcome.NotRead, Drifted: "Unknown", DriftedReason: outcome.NotRead, Nodes: "-",
			ManifestNodes: Nodes(o.Target.Input), labels: labelsOf(o.Target.Input)}
		price := pricer(o.Target.Input, prices)
		row.ManifestCost = price(o.Target.Input)
		if st := o.Report; st != nil {
			if st.Recorded != nil {
				row.Nodes, row.Cost = Nodes(st.Recorded), price(st.Recorded)
			}
			if st.Cloud != nil {
				// What status read of the cloud, with the record's beside it where they differ.
				cloudNodes, cloudCost := Nodes(st.Cloud), price(st.Cloud)
				if cloudNodes != row.Nodes || !reflect.DeepEqual(cloudCost, row.Cost) {
					row.RecordedNodes, row.RecordedCost = row.Nodes, row.Cost
				}
				row.Nodes, row.Cost = cloudNodes, cloudCost
			}
			ready, drifted := st.Condition("Ready"), st.Condition("Drifted")
			row.Ready, row.ReadyReason, row.Drifted, row.DriftedReason = ready.Status, ready.Reason, drifted.Status, drifted.Reason
			row.Generation, row.ObservedGeneration, row.LastUpdate = st.Generation, st.ObservedGeneration, st.LastUpdate
			switch {
			case ready.Status != "True":
				row.Message = ready.Message
			case drifted.Status == "True":
				row.Message = drifted.Message
			}
		} else {
			row.Failed = cmp.Or(oneLine(o.Reason), string(o.Status))
			if o.Err != nil {
				row.Failed = oneLine(Cause(o.Err, o.Target))
			}
			row.Message = row.Failed
		}
		rows = append(rows, row)
	}
	return rows
}

// pricer prices a stack input with the prices of input's cloud: nil for every input when not
// priced (prices nil, or an input of no known cloud).
func pricer(input proto.Message, prices func(cloud string) cost.Prices) func(proto.Message) *cost.Estimate {
	none := func(proto.Message) *cost.Estimate { return nil }
	if prices == nil || input == nil {
		return none
	}
	d, ok := cloudlist.OfInput(input)
	if !ok {
		return none
	}
	p := prices(string(d.ID()))
	return func(in proto.Message) *cost.Estimate {
		e := cost.Of(in, p)
		return &e
	}
}

// Nodes is how many nodes a manifest asks for, over all its pools: "3", or "2–5" when a pool
// autoscales; "-" when it names none.
func Nodes(input proto.Message) string {
	if input == nil {
		return "-"
	}
	spec := protofield.At(input.ProtoReflect(), kindfield.StackInputTarget, kindfield.TargetSpec)
	if spec == nil {
		return "-"
	}
	low, high, found := int64(0), int64(0), false
	eachPool(spec, func(pool protoreflect.Message) {
		found = true
		n := protofield.Int(pool, kindfield.SpecNodeCount)
		lo, hi := n, n
		autoscaled := pool.Descriptor().Fields().ByJSONName(kindfield.SpecAutoScale) == nil && protofield.Int(pool, kindfield.SpecMaxNodes) > 0
		if protofield.Bool(pool, kindfield.SpecAutoScale) || autoscaled { // as cost counts a pool that autoscales
			lo, hi = protofield.Int(pool, kindfield.SpecMinNodes), protofield.Int(pool, kindfield.SpecMaxNodes)
		}
		low, high = low+lo, high+hi
	})
	switch {
	case !found:
		return "-"
	case low == high:
		return fmt.Sprint(low)
	}
	return fmt.Sprintf("%d–%d", low, high)
}

// eachPool calls f with every message under m (m included) holding a node count: the node pools,
// default or not, as cost counts them.
func eachPool(m protoreflect.Message, f func(protoreflect.Message)) {
	fields := m.Descriptor().Fields()
	if fields.ByJSONName(kindfield.SpecNodeCount) != nil && fields.ByJSONName(kindfield.SpecSize) != nil {
		f(m)
	}
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Message() != nil && !fd.IsList() && !fd.IsMap() && m.Has(fd) {
			eachPool(m.Get(fd).Message(), f)
		}
	}
}

// labelsOf reads a manifest's metadata.labels by key ("" when unset).
func labelsOf(input proto.Message) func(string) string {
	if input == nil {
		return func(string) string { return "" }
	}
	meta := protofield.At(apikinds.Target(input).ProtoReflect(), kindfield.TargetMetadata)
	return func(key string) string {
		return protofield.MapValue(meta, sharedv1.CloudResourceMetadataFieldLabels, key)
	}
}

// StatusView is how status shows a fleet: the table's flags (--wide, --sort-by, --only, -l,
// --kind), bound by Flags and checked by Validate before anything runs.
type StatusView struct {
	Wide     bool
	SortBy   string
	Only     string
	Selector string
	Kinds    []string
	// Now is the time the ages are from; zero: the time of the call.
	Now time.Time
	// total is how many stacks the run had before the filter (Filter): one stack's status is
	// shown in full, a fleet's as the table. unchecked is how many of them have Drifted Unknown
	// because status did not compare the cloud (no --drift).
	total, unchecked int
}

// statusColumns are the columns --sort-by takes, by the table's header in lower case.
var statusColumns = []string{"stack", "kind", "ready", "drifted", "generation", "nodes", "cost", "last-update", "file"}

// onlyValues are what --only takes.
var onlyValues = []string{"not-ready", "drifted", "failed"}

// Flags binds the view's flags.
func (v *StatusView) Flags(fs *pflag.FlagSet) {
	fs.BoolVar(&v.Wide, "wide", false, "show more columns: the file, the generation the last up deployed, the last update and why a stack is not fine")
	fs.StringVar(&v.SortBy, "sort-by", "", "sort the table by a column: "+strings.Join(statusColumns, ", ")+" (default the order of the files)")
	fs.StringVar(&v.Only, "only", "", "show only the stacks that are not-ready, drifted (status --drift) or failed (the last update failed, "+
		"or status could not read the stack)")
	fs.StringVarP(&v.Selector, "selector", "l", "", "show only the stacks whose manifest's metadata.labels match, as kubectl's: "+
		"key=value, key!=value, key, !key, comma-separated (all must match)")
	fs.StringSliceVar(&v.Kinds, "kind", nil, "show only the stacks of these kinds (a kind's name or short name, as clusterplane kinds lists them), comma-separated")
}

// Validate checks the flags' values, so that a mistyped column or filter is said before any stack
// is read.
func (v *StatusView) Validate() error {
	if v.SortBy != "" && !slices.Contains(statusColumns, strings.ToLower(v.SortBy)) {
		return errors.Errorf("--sort-by %q: not a column; one of %s", v.SortBy, strings.Join(statusColumns, ", "))
	}
	if v.Only != "" && !slices.Contains(onlyValues, v.Only) {
		return errors.Errorf("--only %q: one of %s", v.Only, strings.Join(onlyValues, ", "))
	}
	_, err := parseSelector(v.Selector)
	return err
}

// Filter keeps the outcomes --only, -l and --kind select, in their order, and remembers how many
// the run had.
func (v *StatusView) Filter(outcomes []outcome.Outcome) []outcome.Outcome {
	v.total = len(outcomes)
	if v.Only == "" && v.Selector == "" && len(v.Kinds) == 0 {
		return outcomes
	}
	sel, _ := parseSelector(v.Selector) // Validate checked it
	rows := StatusRows(outcomes, nil)
	var kept []outcome.Outcome
	v.unchecked = 0
	for i, o := range outcomes {
		if rows[i].DriftedReason == outcome.NotChecked {
			v.unchecked++
		}
		if v.selects(rows[i], o.Target, sel) {
			kept = append(kept, o)
		}
	}
	return kept
}

// selects tells whether a row passes --only, -l and --kind.
func (v *StatusView) selects(row StatusRow, t deploytarget.Target, sel []requirement) bool {
	switch v.Only {
	case "not-ready":
		if row.Ready == "True" {
			return false
		}
	case "drifted":
		if row.Drifted != "True" {
			return false
		}
	case "failed":
		if row.Failed == "" && !row.ReadyReason.LastNotSucceeded() {
			return false
		}
	}
	if len(v.Kinds) > 0 && !slices.ContainsFunc(v.Kinds, func(k string) bool { return strings.EqualFold(k, t.Name) || strings.EqualFold(k, t.Short) }) {
		return false
	}
	for _, r := range sel {
		if !r.matches(row.labels) {
			return false
		}
	}
	return true
}

// Text writes the status: one stack's in full (Status), a fleet's as the table, or the table
// when --wide or --sort-by ask for it.
func (v *StatusView) Text(w io.Writer, outcomes []outcome.Outcome, prices func(cloud string) cost.Prices) {
	if v.total <= 1 && len(outcomes) == 1 && !v.Wide && v.SortBy == "" {
		Status(w, outcomes)
		return
	}
	rows := StatusRows(outcomes, prices)
	v.sort(rows)
	now := v.Now
	if now.IsZero() {
		now = time.Now()
	}
	// The counts are the fleet's: under a filter they would count only what it kept, and the rows
	// shown are what was asked for (status --only drifted: the drifted stacks, nothing else).
	filtered := v.Only != "" || v.Selector != "" || len(v.Kinds) > 0
	if filtered && len(rows) == 0 {
		// A header over nothing read as a table that failed to fill: say that none matched, and
		// why --only drifted cannot match without --drift.
		fmt.Fprintf(w, "No stack of the %d matches %s.\n", v.total, v.filters())
		if v.Only == "drifted" && v.unchecked > 0 {
			fmt.Fprintf(w, "Drifted is Unknown (NotChecked) for %d of them: status reads the backend only; status --drift compares the cloud.\n", v.unchecked)
		}
		return
	}
	StatusTable(w, rows, v.Wide, !filtered, now)
}

// filters says the filter flags given, as typed.
func (v *StatusView) filters() string {
	var f []string
	if v.Only != "" {
		f = append(f, "--only "+v.Only)
	}
	if v.Selector != "" {
		f = append(f, "-l "+v.Selector)
	}
	if len(v.Kinds) > 0 {
		f = append(f, "--kind "+strings.Join(v.Kinds, ","))
	}
	return strings.Join(f, ", ")
}

// sort orders the rows by --sort-by's column, stably: rows that tie keep the files' order.
func (v *StatusView) sort(rows []StatusRow) {
	key := map[string]func(StatusRow) string{
		"stack": func(r StatusRow) string { return r.Stack }, "kind": func(r StatusRow) string { return r.Kind },
		"ready": func(r StatusRow) string { return r.Ready }, "drifted": func(r StatusRow) string { return r.Drifted },
		"generation": func(r StatusRow) string { return r.Generation }, "file": func(r StatusRow) string { return r.File },
		"last-update": func(r StatusRow) string { return ended(r.LastUpdate) },
	}[strings.ToLower(v.SortBy)]
	switch strings.ToLower(v.SortBy) {
	case "":
	case "nodes":
		slices.SortStableFunc(rows, func(a, b StatusRow) int { return cmp.Compare(firstInt(a.Nodes), firstInt(b.Nodes)) })
	case "cost":
		slices.SortStableFunc(rows, func(a, b StatusRow) int { return cmp.Compare(monthly(a.Cost), monthly(b.Cost)) })
	default:
		slices.SortStableFunc(rows, func(a, b StatusRow) int { return cmp.Compare(key(a), key(b)) })
	}
}

// StatusTable writes the rows as a table, one row a stack, then (withCounts) a line of counts; wide
// adds the file, the generation the last up deployed, the last update and why a stack is not fine.
func StatusTable(w io.Writer, rows []StatusRow, wide, withCounts bool, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	header := "STACK\tKIND\tREADY\tDRIFTED\tGENERATION\tNODES\tCOST\tLAST UPDATE"
	if wide {
		header += "\tFILE\tOBSERVED\tUPDATE\tMESSAGE"
	}
	fmt.Fprintln(tw, header)
	ready, notReady, failed := 0, 0, 0
	var drift driftCounts
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s", r.Stack, r.Kind, condition(r.Ready, r.ReadyReason, "True"),
			condition(r.Drifted, r.DriftedReason, "False"), cmp.Or(r.Generation, "-"), beside(r.Nodes, r.RecordedNodes, r.ManifestNodes),
			beside(costCell(r.Cost), recordedCostCell(r), costCell(r.ManifestCost)), age(r, now))
		if wide {
			fmt.Fprintf(tw, "\t%s\t%s\t%s\t%s", r.File, cmp.Or(r.ObservedGeneration, "none"), lastUpdate(r.LastUpdate), cmp.Or(oneLine(r.Message), "-"))
		}
		fmt.Fprintln(tw)
		switch {
		case r.Failed != "":
			failed++
		case r.Ready == "True":
			ready++
		default:
			notReady++
		}
		drift.add(r)
	}
	_ = tw.Flush()
	if !withCounts {
		return
	}
	fmt.Fprintf(w, "%d stacks: %d ready, %d not ready, %s", len(rows), ready, notReady, drift)
	if failed > 0 {
		fmt.Fprintf(w, ", %d not read", failed)
	}
	fmt.Fprintln(w)
}

// driftCounts count the rows status compared with the cloud (drifted or not), those it did not
// compare because it was not asked to (no --drift), and those it could not compare (a preview
// that failed, a rotation stopped midway, nothing deployed: Drifted=Unknown).
type driftCounts struct{ drifted, compared, unchecked, unknown int }

func (c *driftCounts) add(r StatusRow) {
	switch {
	case r.Failed != "":
		// Counted as not read.
	case r.DriftedReason == outcome.NotChecked:
		c.unchecked++
	case r.Drifted == "True":
		c.drifted++
		c.compared++
	case r.Drifted == "False":
		c.compared++
	case r.Drifted == "Unknown":
		c.unknown++
	}
}

// String is the summary's word on drift: a count only of what was compared. "0 drifted" after a
// status that read only the backend, or whose every preview failed, would say the fleet is in
// sync when nothing looked.
func (c driftCounts) String() string {
	var parts []string
	if c.compared > 0 || c.unchecked+c.unknown == 0 {
		parts = append(parts, fmt.Sprintf("%d drifted", c.drifted))
	}
	if c.unknown > 0 {
		parts = append(parts, fmt.Sprintf("drift unknown for %d (see DRIFTED)", c.unknown))
	}
	switch {
	case c.unchecked > 0 && len(parts) == 0:
		parts = append(parts, "drift not checked (status --drift)")
	case c.unchecked > 0:
		parts = append(parts, fmt.Sprintf("drift not checked for %d (status --drift)", c.unchecked))
	}
	return strings.Join(parts, ", ")
}

// beside is a cell of the cloud's figure with the record's (where status read the cloud) and the
// manifest's beside it when they differ: "4 (recorded 2, manifest 3)", "$48.00 (manifest $72.00)".
func beside(cloud, recorded, manifest string) string {
	var others []string
	if recorded != "" && recorded != cloud {
		others = append(others, "recorded "+recorded)
	}
	if manifest != cloud {
		others = append(others, "manifest "+manifest)
	}
	if len(others) == 0 {
		return cloud
	}
	return cloud + " (" + strings.Join(others, ", ") + ")"
}

// recordedCostCell is the record's cost where status read the cloud and it differs, "" else.
func recordedCostCell(r StatusRow) string {
	if r.RecordedNodes == "" && r.RecordedCost == nil {
		return ""
	}
	return costCell(r.RecordedCost)
}

// condition is a condition's cell: its status, and its reason when it is not the fine one
// (Ready True, Drifted False) and says more than that status reads only the backend.
func condition(status string, reason outcome.Reason, fine string) string {
	if status == fine || reason == "" || reason == outcome.NotChecked {
		return status
	}
	return status + " (" + string(reason) + ")"
}

// costCell is a monthly cost in a cell: "$72.00", "$48.00–$120.00", "-" when not priced, "?"
// when no size of it has a known price.
func costCell(e *cost.Estimate) string {
	switch {
	case e == nil:
		return "-"
	case e.Min == 0 && e.Max == 0 && len(e.Unknown) > 0:
		return "?"
	case e.Min == e.Max:
		return fmt.Sprintf("$%.2f", e.Min)
	}
	return fmt.Sprintf("$%.2f–$%.2f", e.Min, e.Max)
}

// age is how long ago the last update ended, as kubectl says an age (45s, 12m, 5h, 3d), with its
// operation when it was not an up; "never" without one, "running" while one has not ended, "-"
// when status could not read the stack.
func age(r StatusRow, now time.Time) string {
	u := r.LastUpdate
	switch {
	case r.Failed != "":
		return "-"
	case u == nil:
		return "never"
	}
	when, err := time.Parse(time.RFC3339, u.Ended)
	if err != nil {
		return "running"
	}
	text := shortDuration(now.Sub(when))
	if u.Operation != "update" {
		text += " (" + u.Operation + ")"
	}
	return text
}

// shortDuration is d in its largest whole unit: 45s, 12m, 5h, 3d.
func shortDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d.Seconds())))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// lastUpdate is the last update's operation and result, "none" without one.
func lastUpdate(u *stackstate.Update) string {
	if u == nil {
		return "none"
	}
	return u.Operation + " " + u.Result
}

// ended is when the last update ended, "" without one: RFC 3339 sorts as time does.
func ended(u *stackstate.Update) string {
	if u == nil {
		return ""
	}
	return u.Ended
}

// firstInt is a nodes cell's first number, -1 for "-".
func firstInt(nodes string) int {
	n := -1
	_, _ = fmt.Sscan(strings.SplitN(nodes, "–", 2)[0], &n)
	return n
}

// monthly is an estimate's high end, -1 when not priced.
func monthly(e *cost.Estimate) float64 {
	if e == nil {
		return -1
	}
	return e.Max
}

// requirement is one term of a label selector: key=value, key!=value, key (set) or !key (unset).
type requirement struct {
	key, value string
	op         string // "=", "!=", "exists", "!exists"
}

// parseSelector reads a selector as kubectl's -l takes it (equality-based), terms separated by
// commas; "" selects everything.
func parseSelector(s string) ([]requirement, error) {
	var out []requirement
	for _, term := range strings.Split(s, ",") {
		term = strings.TrimSpace(term)
		var r requirement
		switch {
		case term == "":
			continue
		case strings.Contains(term, "!="):
			k, v, _ := strings.Cut(term, "!=")
			r = requirement{key: k, value: v, op: "!="}
		case strings.Contains(term, "=="):
			k, v, _ := strings.Cut(term, "==")
			r = requirement{key: k, value: v, op: "="}
		case strings.Contains(term, "="):
			k, v, _ := strings.Cut(term, "=")
			r = requirement{key: k, value: v, op: "="}
		case strings.HasPrefix(term, "!"):
			r = requirement{key: strings.TrimPrefix(term, "!"), op: "!exists"}
		default:
			r = requirement{key: term, op: "exists"}
		}
		r.key, r.value = strings.TrimSpace(r.key), strings.TrimSpace(r.value)
		if r.key == "" || strings.ContainsAny(r.key+r.value, "!=() ") {
			return nil, errors.Errorf("-l %q: %q is not key=value, key!=value, key or !key", s, term)
		}
		out = append(out, r)
	}
	return out, nil
}

// matches tells whether labels meet the requirement.
func (r requirement) matches(labels func(string) string) bool {
	v := labels(r.key)
	switch r.op {
	case "=":
		return v == r.value
	case "!=":
		return v != r.value
	case "exists":
		return v != ""
	}
	return v == ""
}

// AsYAML is a JSON report as YAML when yes (status -o yaml: each stack's detail, as kubectl -o
// yaml shows an object), else data as it is.
func AsYAML(data []byte, yes bool) ([]byte, error) {
	if !yes {
		return data, nil
	}
	out, err := yaml.JSONToYAML(data)
	return out, errors.Wrap(err, "write the report as YAML")
}
