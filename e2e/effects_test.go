//go:build e2e

package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/change/replace"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/autostack"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/digitalocean/godo"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
)

// The effects walk holds every row of pkg/change/effects against the real provider plugins: for each
// change it deploys the old manifest, asks what `diff` claims, then previews, deploys and
// refreshes the new one on the real plugin and checks that what happened is what the claim says:
//
//   - update: the engine updates the row's resource in place, and a refreshed preview is clean
//     afterwards (the change reached the cloud and stayed);
//   - replace: the engine replaces it;
//   - ignored: the engine changes nothing;
//   - refused: clusterplane refuses the change before the engine runs, and deployed anyway (past
//     the gate, which only tests do) the provider does what the row's Refusal says: fails at
//     preview, fails at apply, accepts it without applying it, keeps the old value, or refuses to
//     replace a protected cluster; or no valid manifest makes the change at all.
//
// The walk runs in this process through pkg/deploy, on one backend and one pair of loopback clouds
// shared by every change, each change on a stack of its own.

// walk is the shared state of the effects walk.
type walk struct {
	deployer *deploy.Deployer
	mu       sync.Mutex
	// exercised counts the rows exercised, by kind and path.
	exercised map[string]map[string]int
}

// clouds are one change's own loopback clouds: a change never sees another's resources (Civo's and
// DigitalOcean's lists come in pages, which the providers read only the first of).
type clouds struct {
	do   *fakedo.DO
	civo *fakecivo.Civo
}

// newClouds starts a change's clouds with what the bases name seeded, each accepting a second
// token of the same account.
// noRefresh previews the walk's changes against the stack's state: the walk's own up just wrote
// it from the cloud, and a read before each of its many previews would only add time.
var noRefresh = deploy.PreviewOptions{NoRefresh: true}

func newClouds(t *testing.T) clouds {
	t.Helper()
	c := clouds{do: fakedo.New(t, doToken), civo: fakecivo.New(t, civoToken, "")}
	c.do.AcceptToken(walkDOToken2)
	c.civo.AcceptToken(walkCivoToken2)
	for _, id := range []string{walkIDs["doCluster"], walkIDs["doCluster2"]} {
		c.do.SeedCluster(godo.KubernetesCluster{ID: id, Name: "seeded-" + id[:8], RegionSlug: "fra1",
			NodePools: []*godo.KubernetesNodePool{{Name: "default", Size: "s-2vcpu-4gb", Count: 1}}})
	}
	c.do.Account().SeedVPC(walkIDs["vpc"], "fra1")
	c.do.Account().SeedVPC(walkIDs["vpc2"], "fra1")
	c.civo.Networking().SeedNetwork(walkIDs["civoNetwork"], "walk-network", "fra1")
	c.civo.Networking().SeedNetwork(walkIDs["civoNetwork2"], "walk-network-2", "fra1")
	c.civo.Networking().SeedFirewall(walkIDs["civoFirewall"], "walk-firewall", "fra1", walkIDs["civoNetwork"])
	for _, id := range []string{walkIDs["civoCluster"], walkIDs["civoCluster2"]} {
		c.civo.SeedCluster(civogo.KubernetesCluster{ID: id, Name: "seeded-" + id[:8], NetworkID: c.civo.DefaultNetworkID("fra1")})
	}
	return c
}

// base is the deployable manifest every change of c's kind starts from, named name, with the
// change's own cloud's URL and token as its provider config; and the values of the placeholders
// of the change's edits.
func (w *walk) base(c change, name string, cl clouds) (map[string]any, map[string]string) {
	group, provider := "digitalocean", map[string]any{"apiToken": doToken, "apiUrl": cl.do.URL()}
	if k, _ := registry.Kinds().ByName(c.kind); cloudOf(k) == "civo" {
		group, provider = "civo", map[string]any{"apiToken": civoToken, "apiUrl": cl.civo.URL()}
	}
	vars := walkVars(name, provider["apiUrl"].(string))
	return map[string]any{"apiVersion": group + ".clusterplane.dev/v1", "kind": c.kind, "metadata": map[string]any{"name": name},
		"spec": expand(c.base, vars), "providerConfig": provider}, vars
}

// apply applies edits to a copy of m.
func apply(m map[string]any, edits []edit) map[string]any {
	data, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	for _, e := range edits {
		parts := strings.Split(e.path, ".")
		cur := out
		for _, p := range parts[:len(parts)-1] {
			next, ok := cur[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				cur[p] = next
			}
			cur = next
		}
		if e.value == del {
			delete(cur, parts[len(parts)-1])
			continue
		}
		cur[parts[len(parts)-1]] = e.value
	}
	return out
}

// target is the deploy target of a manifest (with providerConfig, a stack input) on stack.
func (w *walk) target(t *testing.T, m map[string]any, stack string) (deploytarget.Target, error) {
	t.Helper()
	doc := m
	if pc, ok := m["providerConfig"]; ok {
		manifest := apply(m, []edit{{"providerConfig", del}})
		doc = map[string]any{"target": manifest, "providerConfig": pc}
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	k, ok := registry.Kinds().ByName(m["kind"].(string))
	if !ok {
		t.Fatalf("no kind %v", m["kind"])
	}
	in := k.NewStackInput()
	if err := stackinput.Parse(data, stack+".json", in); err != nil {
		return deploytarget.Target{}, err
	}
	return deploytarget.NewTarget(stack+".json", k, in, stack), nil
}

// observed is what the real provider did with a change, in words for a failure's message.
type observed struct {
	words []string
}

func (o *observed) say(format string, args ...any) {
	o.words = append(o.words, fmt.Sprintf(format, args...))
}

// typeOf is the type token of the row's resource.
func typeOf(kind string, row effects.Row) string {
	table := registry.Kinds().Table(kind)
	if row.Resource == effects.Stack {
		return table.Types[effects.Cluster] + table.Types[effects.NodePool]
	}
	return table.Types[row.Resource]
}

// stepsOn are the engine's steps on resources of type typ.
func stepsOn(res *stackstate.Result, typ string) []stackstate.Step {
	if res == nil {
		return nil
	}
	var out []stackstate.Step
	for _, s := range res.Steps {
		if s.Type == typ && s.Action != string(apitype.OpRefresh) {
			out = append(out, s)
		}
	}
	return out
}

func ops(steps []stackstate.Step) string {
	var out []string
	for _, s := range steps {
		out = append(out, s.Action+" "+s.Name+" "+strings.Join(s.Paths, ","))
	}
	return strings.Join(out, "; ")
}

// run walks one change and checks the claim against what the provider did.
func (w *walk) run(t *testing.T, n int, c change) {
	ctx := context.Background()
	table := registry.Kinds().Table(c.kind)
	row, ok := table.Lookup(c.row)
	if !ok {
		t.Fatalf("no row %s %s", c.kind, c.row)
	}
	stack := fmt.Sprintf("w%03d", n)
	k, _ := registry.Kinds().ByName(c.kind)
	name := fmt.Sprintf("%s-%03d", k.Short, n)
	cl := newClouds(t)
	base, vars := w.base(c, name, cl)
	oldT, err := w.target(t, apply(base, expandEdits(c.old, vars)), stack)
	if err != nil {
		t.Fatalf("the old manifest: %v", err)
	}
	newM := apply(base, expandEdits(c.new, vars))
	newT, newErr := w.target(t, newM, stack)
	// The walk deploys each change onto the old manifest's stack on purpose, as --stack with
	// --retarget does: a new metadata.name would otherwise name a stack of its own.
	newT.Retarget = true

	claim := claimOf(t, c, oldT, newT, newErr)
	w.count(c.kind, c.row)

	if claim.Refusal == effects.Invalid {
		if newErr == nil || !strings.Contains(newErr.Error(), c.row) {
			t.Errorf("%s %s: claimed %s (%s), but the new manifest is %v", c.kind, c.row, claim.Effect, claim.Refusal, newErr)
		}
		return
	}
	// The walk sets each row's stack up on purpose, whatever the row before left: it may replace.
	if o := w.deployer.Up(ctx, oldT, deploy.UpOptions{Yes: true, AllowReplace: replace.Everything()}); o.Status != outcome.Done {
		t.Fatalf("deploying the old manifest: %s %v", o.Status, o.Err)
	}
	typ := typeOf(c.kind, row)
	var seen observed
	fail := func() {
		t.Errorf("%s %s (%s): claimed %s%s (%s), the provider: %s", c.kind, c.row, c.name, claim.Effect,
			map[bool]string{true: "/" + string(claim.Refusal), false: ""}[claim.Refusal != ""], claim.Reason, strings.Join(seen.words, "; "))
	}

	switch claim.Effect {
	case effects.Refused:
		if claim.Refusal == effects.Identity {
			w.identity(ctx, newT, c.row, &seen, fail)
			return
		}
		gated := w.deployer.Up(ctx, newT, deploy.UpOptions{Yes: true})
		var refused *stackstate.RefusedError
		if gated.Status != outcome.Blocked || !errors.As(gated.Err, &refused) || !strings.Contains(refused.Error(), c.row) {
			seen.say("clusterplane did not refuse it before the engine: %s %v", gated.Status, gated.Err)
			fail()
			return
		}
		w.refused(ctx, t, newT, typ, claim, &seen, fail)
	case effects.Update, effects.Replace, effects.Ignored:
		w.appliedAsClaimed(ctx, t, cl, newT, typ, row, claim, &seen, fail)
	}
}

// claimOf is what diff claims for the change's row, or, when the new manifest does not parse, a
// refusal of it as invalid: the claim the provider's doing is then checked against.
func claimOf(t *testing.T, c change, oldT, newT deploytarget.Target, newErr error) diff.Change {
	t.Helper()
	if newErr != nil {
		return diff.Change{Path: c.row, Effect: effects.Refused, Refusal: effects.Invalid}
	}
	result, err := diff.Compare(newT.Effects, oldT.Input, newT.Input)
	if err != nil {
		t.Fatal(err)
	}
	var claim diff.Change
	for _, ch := range result.Changes {
		if ch.Path == c.row {
			claim = ch
		}
	}
	if claim.Path == "" {
		t.Fatalf("diff claims nothing for %s: %+v", c.row, result.Changes)
	}
	return claim
}

// appliedAsClaimed previews and deploys a change clusterplane lets through, refreshes, and calls
// fail unless the engine's steps are what the claim (update, replace or nothing) says.
func (w *walk) appliedAsClaimed(ctx context.Context, t *testing.T, cl clouds, newT deploytarget.Target, typ string, row effects.Row, claim diff.Change, seen *observed, fail func()) {
	t.Helper()
	preview := w.deployer.Preview(ctx, newT, noRefresh)
	steps := stepsOn(preview.Result, typ)
	seen.say("preview %s [%s]", preview.Status, ops(steps))
	// A replacement's preview says how to let it through (replace.UnaskedError): no failure.
	var unasked *replace.UnaskedError
	if preview.Err != nil && !(claim.Effect == effects.Replace && errors.As(preview.Err, &unasked)) {
		seen.say("preview error %v", preview.Err)
		fail()
		return
	}
	// A renamed manifest deployed onto the old stack is a retarget, which --retarget names (and
	// the walk gives, as --stack with --retarget does): the engine creates and deletes, no replace.
	if claim.Effect == effects.Replace && claim.Path != "metadata.name" && !w.replaceRefused(ctx, cl, newT, seen) {
		fail()
		return
	}
	up := w.deployer.Up(ctx, newT, deploy.UpOptions{Yes: true, AllowReplace: allowOnly(t, newT)})
	seen.say("up %s %q", up.Status, up.Reason)
	if up.Status != outcome.Done {
		seen.say("%v", up.Err)
		fail()
		return
	}
	drift := w.deployer.Drift(ctx, newT)
	seen.say("refreshed preview %s %q", drift.Status, drift.Reason)
	changed := false
	replaced := false
	for _, s := range steps {
		switch apitype.OpType(s.Action) {
		case apitype.OpUpdate:
			changed = true
		case apitype.OpReplace, apitype.OpCreateReplacement, apitype.OpDeleteReplaced, apitype.OpCreate, apitype.OpDelete:
			replaced = true
		}
	}
	ok := drift.Status == outcome.Done
	switch claim.Effect {
	case effects.Update:
		ok = ok && !replaced && (changed || stateOnly(row))
	case effects.Replace:
		ok = ok && replaced
	case effects.Ignored:
		ok = ok && !changed && !replaced
	}
	if !ok {
		fail()
	}
}

// stateOnly tells a row whose change reaches no cloud API: it is recorded in the stack's state
// (deletion protection, a setting the provider reads later), so the engine shows no step for it.
func stateOnly(row effects.Row) bool {
	return strings.Contains(row.Reason, "recorded in state only") || strings.Contains(row.Reason, "protect flag") ||
		strings.Contains(row.Reason, "nothing is sent")
}

// replaceRefused tells whether up --yes without --allow-replace refuses a change the effects
// table says replaces, on the real engine and provider: blocked naming rollout and the
// --allow-replace=KIND/NAME that would let it through, and no write reached either loopback cloud.
func (w *walk) replaceRefused(ctx context.Context, cl clouds, newT deploytarget.Target, seen *observed) bool {
	before := cl.writes()
	up := w.deployer.Up(ctx, newT, deploy.UpOptions{Yes: true})
	var unasked *replace.UnaskedError
	named := "--allow-replace=" + newT.Name + "/" + newT.MetadataName()
	if up.Status != outcome.Blocked || !errors.As(up.Err, &unasked) || !strings.Contains(up.Err.Error(), named) ||
		!strings.Contains(up.Err.Error(), "rollout") {
		seen.say("up --yes without --allow-replace: %s %v, want blocked naming rollout and %s", up.Status, up.Err, named)
		return false
	}
	if after := cl.writes(); after != before {
		seen.say("up --yes without --allow-replace sent %d writes to the clouds", after-before)
		return false
	}
	return true
}

// writes counts the requests that change something the two clouds have answered so far.
func (c clouds) writes() int {
	n := 0
	for _, m := range []string{"POST", "PUT", "PATCH", "DELETE"} {
		n += len(c.do.Requests(m)) + len(c.civo.Requests(m))
	}
	return n
}

// allowOnly is the --allow-replace=KIND/NAME of t's manifest alone.
func allowOnly(t *testing.T, target deploytarget.Target) replace.Allowed {
	t.Helper()
	a, err := replace.Parse([]string{target.Name + "/" + target.MetadataName()}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// identity checks a change clusterplane refuses on the stack whatever the flags: preview and up,
// even past the gate, stop before the engine naming the field.
func (w *walk) identity(ctx context.Context, newT deploytarget.Target, row string, seen *observed, fail func()) {
	var retarget *deploytarget.RetargetError
	for _, o := range []outcome.Outcome{
		w.deployer.Preview(ctx, newT, noRefresh),
		w.deployer.Up(ctx, newT, deploy.UpOptions{Yes: true}),
		w.deployer.Up(ctx, newT, deploy.UpOptions{Yes: true, AllowRefused: true, AllowReplace: replace.Everything()}),
	} {
		seen.say("%s %v", o.Status, o.Err)
		if o.Status != outcome.Blocked || !errors.As(o.Err, &retarget) || !strings.Contains(o.Err.Error(), row) {
			fail()
			return
		}
	}
}

// refused deploys a refused change past the gate and checks the provider does what the claim's
// Refusal says.
func (w *walk) refused(ctx context.Context, t *testing.T, newT deploytarget.Target, typ string, claim diff.Change, seen *observed, fail func()) {
	preview := w.deployer.Preview(ctx, newT, noRefresh)
	var engine *stackstate.EngineError
	var protected *stackstate.ProtectedError
	var module *stackstate.RefusedError
	// The engine's preview failed: with the engine's error, or with the module's refusal read
	// back from it (stackstate.ModuleRefusal), blocked and with no plan, where clusterplane's own
	// gate would have one.
	previewFailed := preview.Status == outcome.Failed && errors.As(preview.Err, &engine) ||
		preview.Status == outcome.Blocked && preview.Result == nil && errors.As(preview.Err, &module)
	seen.say("preview %s [%s] %v", preview.Status, ops(stepsOn(preview.Result, typ)), preview.Err)
	switch claim.Refusal {
	case effects.FailsAtPreview:
		if !previewFailed {
			fail()
		}
		return
	case effects.Protected:
		if !errors.As(preview.Err, &protected) {
			fail()
		}
		return
	}
	if previewFailed {
		fail()
		return
	}
	up := w.deployer.Up(ctx, newT, deploy.UpOptions{Yes: true, AllowRefused: true, AllowReplace: replace.Everything()})
	seen.say("up past the gate %s %v", up.Status, up.Err)
	switch claim.Refusal {
	case effects.FailsAtApply:
		if up.Status != outcome.Failed {
			fail()
		}
	case effects.NotApplied:
		drift := w.deployer.Drift(ctx, newT)
		seen.say("refreshed preview %s %q", drift.Status, drift.Reason)
		if up.Status != outcome.Done || drift.Status != outcome.Drifted {
			fail()
		}
	case effects.Kept:
		steps := stepsOn(preview.Result, typ)
		drift := w.deployer.Drift(ctx, newT)
		seen.say("refreshed preview %s %q", drift.Status, drift.Reason)
		if len(steps) != 0 || up.Status != outcome.Done || drift.Status != outcome.Done {
			fail()
		}
	default:
		seen.say("no refusal class")
		fail()
	}
}

func (w *walk) count(kind, row string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.exercised[kind] == nil {
		w.exercised[kind] = map[string]int{}
	}
	w.exercised[kind][row]++
}

// Promise: e2e-every-effects-row-holds
func TestEveryRowOfTheEffectsTableHoldsAgainstTheRealProviders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// The walk runs the modules in this process: it takes the test's Pulumi home, backend and
	// engine. Each change names its own cloud in its provider config.
	for _, v := range e.vars {
		name, value, _ := strings.Cut(v, "=")
		if name == "PATH" || strings.HasPrefix(name, "PULUMI_") {
			os.Setenv(name, value)
		}
	}
	backend, err := autostack.New(autostack.Options{Plugin: filepath.Join(binaries(t), "clusterplane")})
	if err != nil {
		t.Fatal(err)
	}
	changes, err := effectChanges()
	if err != nil {
		t.Fatal(err)
	}
	w := &walk{deployer: &deploy.Deployer{Backend: backend}, exercised: map[string]map[string]int{}}
	t.Run("changes", func(t *testing.T) {
		for i, c := range changes {
			t.Run(c.kind+"/"+c.row+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				w.run(t, i, c)
			})
		}
	})
	// Every row must be exercised.
	for _, table := range registry.Kinds().Tables() {
		var missing []string
		for _, row := range table.Rows {
			if w.exercised[table.Name][row.Path] == 0 {
				missing = append(missing, row.Path)
			}
		}
		sort.Strings(missing)
		t.Logf("%s: %d of %d rows exercised on the real provider", table.Name, len(w.exercised[table.Name]), len(table.Rows))
		if len(missing) > 0 {
			t.Errorf("%s: rows no change exercised: %s", table.Name, strings.Join(missing, ", "))
		}
	}
	// The second tokens the changes used stay secrets too.
	var state strings.Builder
	_ = filepath.WalkDir(filepath.Join(e.dir, "state"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(path)
			state.Write(data)
		}
		return nil
	})
	for _, token := range []string{walkDOToken2, walkCivoToken2} {
		if strings.Contains(state.String(), token) {
			t.Errorf("the state holds a token in plain text")
		}
	}
}
