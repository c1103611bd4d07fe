package pipeline

import (
	"context"
	"fmt"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/sig"

	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/cloud/scan"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/fielddrift"
	"github.com/clusterplane/clusterplane/pkg/deploy/rotationrun"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/manifest/labels"
	"github.com/clusterplane/clusterplane/pkg/pulumi/stackrecord"
)

// scanFleet lists each cloud account's clusters once and judges every target's stack against
// them. A stack the scan cannot judge (no records read directly, a last update that did not
// succeed, creates pending, a rotation possible, resources the scan does not read) is Unjudged:
// it runs as without the scan.
func (r Request) scanFleet(ctx context.Context, b stackstate.Backend, targets []deploytarget.Target) map[string]deploy.Scanned {
	if !b.ReadsRecords() {
		r.say(string(r.Op.Operation()) + " runs every stack: this backend's records are read through the Pulumi CLI, so no fleet scan compares them with the cloud's lists")
		return nil
	}
	s := r.Scanner
	if s == nil {
		s = scan.New()
	}
	out := map[string]deploy.Scanned{}
	c := tally{verdicts: map[scan.Verdict]int{}, unjudged: map[string]int{}, stacks: len(targets)}
	// Each stack's outputs, for the stacks that reference it, which come after it (deps first).
	recorded := map[string]map[string]stackstate.Output{}
	// The clusters each stack's state holds, for those whose records were read (unrecorded):
	// drift and status --drift name the clusters marked by a stack that does not hold them.
	holds := map[string][]string{}
	findsUnrecorded := r.Op.Operation() == operation.Drift || r.Op.Operation() == operation.Status
	next := readAhead(ctx, b, targets)
	for _, t := range targets {
		r := next()
		if _, _, token := stackinput.CloudAPI(t.Input); token != "" && (r.err == nil && r.stateErr == nil || errors.Is(r.err, stackstate.ErrNotDeployed)) {
			if ids, known := recordedClusters(t, r.st); known {
				holds[t.Key()] = ids
			}
		}
		sc, outputs := judge(ctx, s, r, t, recorded)
		if sc.HoldsNothing && findsUnrecorded {
			// What the stack's create left, carrying its mark, is in its account's list (unrecorded).
			listAccountOf(ctx, s, t)
		}
		if !sc.Unchanged && !sc.HoldsNothing && r.rec.Keep != nil {
			// The stack runs (a reference of its can only make it run too): its first state
			// read takes this parse rather than parsing the same bytes again.
			r.rec.Keep()
		}
		recorded[t.Key()] = outputs
		out[t.Key()] = sc
		switch {
		case sc.HoldsNothing:
			c.notDeployed++
		case sc.Verdict == scan.Unjudged:
			c.verdicts[sc.Verdict]++
			c.unjudged[sc.Why]++
		default:
			c.verdicts[sc.Verdict]++
		}
	}
	for _, t := range targets { // deps first: a stack's references are judged before it
		sc := out[t.Key()]
		for _, ref := range deploytarget.References(t.Input) {
			// What a stack reads from another may have changed with it: it is unchanged only with
			// every stack it references unchanged in this run.
			if !out[ref].Unchanged {
				sc.Unchanged = false
			}
		}
		out[t.Key()] = sc
		if sc.Unchanged {
			c.skipped++
		}
	}
	c.requests = s.Requests()
	line := c.line(r.Op.Operation())
	switch r.Op.Operation() {
	case operation.Drift, operation.Status: // status --drift (findsUnrecorded)
		if others := markUnrecorded(out, b.ID(), s.Unheld(), s.MarkedPools(), targets, holds); len(others) > 0 {
			r.say(line)
			line = unrecordedLine(others)
		}
		if unheld := unmanaged(s.Unheld()); len(unheld) > 0 {
			r.say(line)
			line = fmt.Sprintf("%s in the listed accounts, without clusterplane's tags, that none of these stacks holds (made outside "+
				"clusterplane? clusterplane discover writes their manifests): %s", count1(len(unheld), "cluster"), clusterNames(unheld))
		}
	}
	r.say(line)
	return out
}

// notDeployed is the scan's reason for a stack that holds nothing, never deployed or destroyed:
// there is nothing to compare, and nothing for the provider's refresh to read.
const notDeployed = "not deployed"

// tally is what the fleet scan found, as its line says it.
type tally struct {
	requests, stacks int
	// verdicts count the deployed stacks by verdict; unjudged why those not judged were not, and
	// how many.
	verdicts map[scan.Verdict]int
	unjudged map[string]int
	// notDeployed stacks hold nothing (fielddrift.NotDeployed); skipped are unchanged, not run.
	notDeployed, skipped int
}

// line is the scan's line for op: what it found, and what the engine does with the rest.
func (c tally) line(op operation.Name) string {
	line := fmt.Sprintf("fleet scan: %s; %s as recorded", count1(c.requests, "cloud request"), count1(c.verdicts[scan.Same], "stack"))
	for _, v := range []scan.Verdict{scan.Differs, scan.Missing} {
		if c.verdicts[v] > 0 {
			line += fmt.Sprintf(", %d %s", c.verdicts[v], map[scan.Verdict]string{scan.Differs: "differing", scan.Missing: "missing from the cloud"}[v])
		}
	}
	if c.verdicts[scan.Unjudged] > 0 {
		whys := make([]string, 0, len(c.unjudged))
		for why, n := range c.unjudged {
			whys = append(whys, fmt.Sprintf("%d: %s", n, why))
		}
		sort.Strings(whys)
		line += fmt.Sprintf(", %d not judged (%s)", c.verdicts[scan.Unjudged], strings.Join(whys, "; "))
	}
	if c.notDeployed > 0 {
		line += fmt.Sprintf(", %d not deployed (nothing to compare)", c.notDeployed)
	}
	switch op {
	case operation.Drift, operation.Status: // status --drift
		// Said only when the engine has stacks left to read: neither an unchanged stack nor
		// one that holds nothing is refreshed.
		if c.stacks-c.skipped-c.notDeployed > 0 {
			line += "; the provider's refresh reads the others (--deep: every stack)"
		}
	case operation.Preview, operation.Up:
		line += fmt.Sprintf("; %d unchanged since their last up, not run (--deep runs every stack)", c.skipped)
	}
	return line
}

// count1 is "1 stack", "2 stacks".
func count1(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// unmanaged are the clusters that carry no clusterplane kind tag: those a clusterplane stack
// deployed (or adopted, whose next up tags them) belong to stacks not given, not to discover.
func unmanaged(cs []scan.Cluster) []scan.Cluster {
	var out []scan.Cluster
	for _, c := range cs {
		if !labels.Managed(c.Tags, "") {
			out = append(out, c)
		}
	}
	return out
}

// clusterNames lists clusters for people, the first ten.
func clusterNames(cs []scan.Cluster) string {
	var names []string
	for _, c := range cs {
		names = append(names, clusterName(c))
	}
	return firstTen(names)
}

// clusterName names a listed cluster for people: its cloud, name, id and region.
func clusterName(c scan.Cluster) string {
	return fmt.Sprintf("%s %s (%s, %s)", c.Cloud, c.Name, c.ID, c.Region)
}

// firstTen joins the first ten of names, and says how many more there are.
func firstTen(names []string) string {
	if len(names) > 10 {
		names = append(names[:10:10], fmt.Sprintf("and %d more", len(names)-10))
	}
	return strings.Join(names, ", ")
}

// judge is the scan's verdict on one target's stack, and the stack's outputs (nil when not read).
// recorded are the outputs of the stacks judged before it, by key: a stack reference of its must
// have read them as they are.
func judge(ctx context.Context, s *scan.Scanner, r stackRecords, t deploytarget.Target, recorded map[string]map[string]stackstate.Output) (deploy.Scanned, map[string]stackstate.Output) {
	var outputs map[string]stackstate.Output
	unjudged := func(why string) (deploy.Scanned, map[string]stackstate.Output) {
		return deploy.Scanned{Verdict: scan.Unjudged, Why: why}, outputs
	}
	nothingHeld := func() (deploy.Scanned, map[string]stackstate.Output) {
		return deploy.Scanned{Verdict: scan.Unjudged, Why: notDeployed, HoldsNothing: true}, outputs
	}
	cloud, base, token := stackinput.CloudAPI(t.Input)
	if token == "" {
		return unjudged("no token to list the cloud with")
	}
	rec, st := r.rec, r.st
	switch err := r.err; {
	case errors.Is(err, stackstate.ErrNotDeployed):
		return nothingHeld()
	case errors.Is(err, stackstate.ErrRecordsUnread):
		return unjudged("its records are read through the Pulumi CLI")
	case err != nil:
		return unjudged("its records were not read: " + err.Error())
	case r.stateErr != nil:
		return unjudged(r.stateErr.Error())
	}
	if holdsNothing(st) {
		// Destroyed: its last update is a destroy, yet there is nothing to judge.
		return nothingHeld()
	}
	// Judged or not, the stack holds its cluster (or its pool's): the line of clusters no stack
	// holds, for discover, must not name it because the stack could not be judged.
	s.Hold(clustersHeld(t, st)...)
	last := rec.Last
	switch {
	case last == nil || last.Operation != "update" || last.Result != "succeeded":
		return unjudged("the last update did not succeed")
	case rec.Newest != "update" || rec.WrittenSinceRecord:
		// A refresh, an import or an edit since rewrote the state: it no longer says what up left.
		return unjudged(rewrittenSince(rec))
	case fielddrift.AdoptionLeft(last) != nil:
		return unjudged("adopted with changes left for the next up")
	case len(st.PendingCreates()) > 0:
		return unjudged("creates pending")
	}
	outputs = st.Outputs()
	if rec, _ := rotationrun.RecordedRotation(outputs); rec != nil || t.Rotate != nil && rotation.AllowsRotation(t.Effects, t.Input) {
		// A rotation may leave pools the stack does not hold: drift looks for them in the cloud.
		return unjudged("a rotation may leave pools behind")
	}
	judged, beside, why := scannedResources(t, st, recorded)
	if why != "" {
		return unjudged(why)
	}
	if field := heldUnclearable(t.Effects, judged[0]); field != "" {
		// The last up ended drifted: the cloud (and so the state) holds what no up puts back.
		return unjudged("the last up left " + field + " differing, which no up puts back")
	}
	account := scan.Account{Cloud: cloud, Base: base, Token: token}
	f := s.Judge(ctx, account, judged[0])
	for _, r := range beside {
		if f.Verdict != scan.Same {
			break
		}
		f = s.Judge(ctx, account, r)
	}
	sc := deploy.Scanned{Verdict: f.Verdict, Why: f.Why}
	program := stackrecord.Program()
	sc.Unchanged = f.Verdict == scan.Same && program != "" && stackstate.StringOutput(outputs, stackrecord.ProgramOutput) == program &&
		(stackstate.StringOutput(outputs, deploytarget.GenerationOutput) == deploytarget.Generation(t.Input) || deploy.SameAsDeployed(t, outputs))
	return sc, outputs
}

// stackRecords are a target's records as readAhead read them: err is Records', stateErr the
// parse's of the state they hold.
type stackRecords struct {
	rec           stackstate.Records
	st            stackstate.State
	err, stateErr error
}

// recordReader is what readAhead asks of a backend: a stack's records.
type recordReader interface {
	Records(ctx context.Context, project, stack string) (stackstate.Records, error)
}

// readAhead reads the records of targets, for judge to take in their order (each call of the
// function returned is the next target's), on as many goroutines as the process has processors
// and at most a few stacks each ahead of the one judged: each stack's records are a file read
// and a checkpoint parsed, ten thousand of them for a fleet, and judging them is what waits for
// the cloud's lists in order. A target judge does not read (no token) is not read.
func readAhead(ctx context.Context, rr recordReader, targets []deploytarget.Target) func() stackRecords {
	workers := runtime.GOMAXPROCS(0)
	read := make([]chan stackRecords, len(targets))
	for i := range read {
		read[i] = make(chan stackRecords, 1)
	}
	// A slot is taken before a target is, so the slots held are those of the targets next
	// in order, and the one judge waits for is always being read.
	slots := make(chan struct{}, 4*workers)
	var taken atomic.Int64
	for range min(workers, len(targets)) {
		go func() {
			for {
				slots <- struct{}{}
				i := int(taken.Add(1)) - 1
				if i >= len(targets) {
					<-slots
					return
				}
				t := targets[i]
				var r stackRecords
				if _, _, token := stackinput.CloudAPI(t.Input); token != "" {
					r.rec, r.err = rr.Records(ctx, t.Project, t.Stack)
					if r.err == nil {
						r.st, r.stateErr = r.rec.StackState()
					}
				}
				read[i] <- r
			}
		}()
	}
	judged := 0
	return func() stackRecords {
		r := <-read[judged]
		read[judged] = nil
		judged++
		<-slots
		return r
	}
}

// scannedResources are the resources of a stack's state the scan reads: its one cluster or
// pool (judged) and what else it holds that the scan reads (beside, a Civo cluster's firewall).
// why says why the scan cannot vouch for the stack, "" when it can.
func scannedResources(t deploytarget.Target, st stackstate.State, recorded map[string]map[string]stackstate.Output) (judged, beside []scan.Resource, why string) {
	for _, res := range st.Deployment.Resources {
		switch {
		case res.Delete || !res.Custom || strings.HasPrefix(string(res.Type), "pulumi:providers:"):
		case res.Type == resource.RootStackType+"Reference":
			// What the stack read from another (a pool its cluster's id): the scan vouches for it
			// only if that stack's outputs, judged just before, are still what it read.
			if why := readAsRecorded(res, recorded); why != "" {
				return nil, nil, why
			}
		case string(res.Type) == deploytarget.GuardedType(t.Effects):
			judged = append(judged, scan.Resource{Type: string(res.Type), ID: string(res.ID), Inputs: res.Inputs,
				Outputs: asReadBack(t.Effects, res.Outputs), Ignore: res.IgnoreChanges})
		case scan.ReadsType(string(res.Type)):
			beside = append(beside, scan.Resource{Type: string(res.Type), ID: string(res.ID), Inputs: res.Inputs, Outputs: res.Outputs,
				Ignore: res.IgnoreChanges})
		default:
			return nil, nil, "the stack holds a " + string(res.Type) + ", which the scan does not read"
		}
	}
	if len(judged) != 1 {
		return nil, nil, "the stack holds no single cluster or pool"
	}
	return judged, beside, ""
}

// clustersHeld are the ids of the clusters t's state holds: its cluster's, or its pool's cluster's
// (the pool's clusterId).
func clustersHeld(t deploytarget.Target, st stackstate.State) []string {
	typ := deploytarget.GuardedType(t.Effects)
	isCluster := t.Effects != nil && t.Effects.Types[effects.Cluster] == typ
	var ids []string
	for _, res := range st.Deployment.Resources {
		switch {
		case string(res.Type) != typ || res.Delete:
		case isCluster:
			ids = append(ids, string(res.ID))
		default:
			clusterID, _ := res.Outputs["clusterId"].(string)
			ids = append(ids, clusterID)
		}
	}
	return ids
}

// holdsNothing tells a state that holds nothing in the cloud (a destroyed stack's): no resource
// but the stack itself and its providers, and no create pending.
func holdsNothing(st stackstate.State) bool {
	for _, r := range st.Deployment.Resources {
		if r.Type != resource.RootStackType && !strings.HasPrefix(string(r.Type), "pulumi:providers:") && !r.Delete {
			return false
		}
	}
	return len(st.PendingCreates()) == 0
}

// rewrittenSince says what rewrote a stack's state since its last up: a refresh (the newest
// record), or an import or edit of the state, which leaves no record (Records.WrittenSinceRecord).
func rewrittenSince(rec stackstate.Records) string {
	if rec.Newest != "update" {
		return "the stack was refreshed since its last up"
	}
	return "its state was written since its last record (an import or edit)"
}

// readAsRecorded says why a stack reference's recorded read of another stack's outputs is not
// what that stack holds now ("" when it is): the other stack must be among those judged, and
// every non-secret output alike. A secret output cannot be compared unread (each stack encrypts
// it under its own key); what valueFrom reads is a non-secret output (a cluster's id).
func readAsRecorded(ref apitype.ResourceV3, recorded map[string]map[string]stackstate.Output) string {
	name, _ := ref.Inputs["name"].(string)
	parts := strings.Split(name, "/")
	key := strings.Join(parts[max(len(parts)-2, 0):], "/")
	now, ok := recorded[key]
	if !ok || now == nil {
		return "it reads stack " + key + ", whose records this scan did not read"
	}
	read, _ := ref.Outputs["outputs"].(map[string]any)
	for k, out := range now {
		v, had := read[k]
		if m, ok := v.(map[string]any); ok && m[sig.Key] == sig.Secret || out.Secret {
			continue
		}
		if !had || !reflect.DeepEqual(v, out.Value) {
			return "it reads stack " + key + ", whose output " + k + " changed since"
		}
	}
	return ""
}

// heldUnclearable names the manifest field, if any, whose value the state holds from the cloud
// although the manifest leaves it empty, where emptying it is a change the provider never sends
// (the effects table's removal refused as not applied, e.g. a DigitalOcean pool's labels):
// the up that recorded the state ended drifted, so the scan's "as recorded" is no "as the
// manifest says". "" when there is none.
func heldUnclearable(table *effects.Table, r scan.Resource) string {
	for _, property := range scan.Compared(r.Type) {
		for _, field := range table.Fields(r.Type, property) {
			// Only a removal the provider never sends (not applied): a value the provider keeps
			// when the manifest stops sending it (kept: an Optional and Computed attribute) is no
			// difference the engine reports either.
			row, ok := table.Lookup(field)
			if !ok || row.Removed == nil || row.Removed.Refusal != effects.NotApplied {
				continue
			}
			if fielddrift.Empty(fielddrift.ValueAt(r.Inputs, property)) && !fielddrift.Empty(fielddrift.ValueAt(r.Outputs, property)) {
				return field
			}
		}
	}
	return ""
}

// asReadBack is a resource's recorded outputs as its provider reads the cloud into them: a
// property the provider records only once a configuration set it, and otherwise files under
// another name (effects.Table.ReadBack: a DigitalOcean cluster's default pool count, which
// flattenNodePool in digitalocean/kubernetes/kubernetes.go always reads into actual_node_count,
// and into node_count only when the state holds one, which an adopted cluster's never does),
// holds what that other name recorded where it holds nothing itself. Else an adopted cluster
// would differ from its cloud forever, though no refresh finds a drift in it.
func asReadBack(table *effects.Table, outputs map[string]any) map[string]any {
	if table == nil {
		return outputs
	}
	for property, alias := range table.ReadBack {
		read := fielddrift.ValueAt(outputs, alias)
		if read == nil || !unset(fielddrift.ValueAt(outputs, property)) {
			continue
		}
		outputs = withValueAt(outputs, property, read)
	}
	return outputs
}

// unset tells a value a provider's state holds for a property it never set: none, or a zero.
func unset(v any) bool {
	n, isNumber := v.(float64)
	return fielddrift.Empty(v) || isNumber && n == 0
}

// withValueAt is a copy of m with v at the dotted path, the maps along it copied, m untouched.
func withValueAt(m map[string]any, path string, v any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, e := range m {
		out[k] = e
	}
	head, rest, nested := strings.Cut(path, ".")
	if !nested {
		out[head] = v
		return out
	}
	inner, _ := m[head].(map[string]any)
	out[head] = withValueAt(inner, rest, v)
	return out
}
