package pipeline

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/cloud/catalogue"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/cloud/runlist"
	"github.com/clusterplane/clusterplane/pkg/cloud/scan"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/queue"
	"github.com/clusterplane/clusterplane/pkg/deploy/retry"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/manifest/changed"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"
)

// Request is one run of the deploy pipeline over the files a user gave: what to read, how to
// reach the engine, which checks run before it and the operation each stack gets. The command,
// and every other way in (an API, a bot), fills one and calls Run; none repeats the order of the
// checks.
type Request struct {
	// Op is the operation each stack gets, made by its constructor (Preview, Up, ...) from that
	// operation's options. Its name (Op.Operation) names the run in what it says and decides the
	// checks it takes (checksOffer, scans) and the order (dependants first for destroy).
	Op Step
	// Paths are the files and folders given; Files says how they are read.
	Paths []string
	Files deploytarget.Files
	// Manifests, when set, are read already (a service builds its stored objects' in memory):
	// the pipeline takes them in place of Paths, with the same checks across them, and reads
	// no file.
	Manifests []deploytarget.Manifest
	// Backend opens where the stacks live. It is called once every file is read and valid, so
	// that a mistake in a file is said before a backend that cannot open is.
	Backend func() (stackstate.Backend, error)
	// Policy, when set, is evaluated over every manifest before any stack runs.
	Policy *policy.Policy
	// Retarget allows a manifest onto a stack that deployed another metadata.name (--retarget).
	Retarget bool
	// Parallel stacks run at once, each within StackTimeout.
	Parallel     int
	StackTimeout time.Duration
	// Deep runs the engine for every stack. Without it, drift, preview and up first scan the
	// fleet (each cloud account's clusters listed once, compared with what each stack recorded):
	// drift refreshes only the stacks the scan cannot vouch for, and preview and up run no stack
	// whose manifest, clusterplane build and cloud are as its last up left them.
	Deep bool
	// Scan, for another operation than those three, scans the fleet as drift does (unless Deep):
	// status --drift reads the cloud only for the stacks the scan cannot vouch for.
	Scan bool
	// Scanner, when set, is the fleet scan's: runs over parts of one fleet that share it list
	// each cloud account once between them (a service checking its objects a part at a time).
	// Unset, each run lists anew.
	Scanner *scan.Scanner
	// ChangedSince, when set, limits the run to the manifests changed since that git commit
	// (package changed: committed or not, and untracked ones) and the stacks that reference
	// theirs, as a pull request's CI wants; the others are not run. The commit is looked up in
	// the git work tree of the first path.
	ChangedSince string
	// SkipBlocked skips the dependants of a blocked stack. Whether dependants run first is the
	// operation's (operation.Name.Reverse: destroy), never set beside it.
	SkipBlocked bool
	// Guard, when set, refuses targets before anything runs: their keys and why. Whole says it
	// refuses every target or none (a saved plan is applied whole).
	Guard func(ctx context.Context, b stackstate.Backend, targets []deploytarget.Target) (map[string]error, error)
	Whole bool
	// Pace, when set, paces the operations by that estimate of their cloud requests.
	Pace queue.Requests
	// Progress, given how many stacks run, is where each stack's engine progress goes
	// (Deployer.Progress): several running at once are told apart by a prefix.
	Progress func(stacks int) func(t deploytarget.Target) io.Writer
	// Rotating, when set, is told each phase of a pool's rotation as an up runs it
	// (Deployer.Rotating).
	Rotating func(t deploytarget.Target, pool string, s rotation.State)
	// Say is told, as they happen, what the user should read before the outcomes: policy
	// warnings, a cloud that did not answer, a pace that slows the run. Nil says nothing.
	Say func(line string)

	// changed are the files changed since ChangedSince, canonical (nil when not asked).
	changed map[string]bool
}

// checksOffer tells that the operation's stacks are checked against the deployed clusters'
// regions and what the cloud offers before the engine runs: those that deploy, or say what
// deploying would do.
func checksOffer(o operation.Name) bool { return o == operation.Preview || o == operation.Up }

// asksTheCloud tells that the operation's engine reads or writes the cloud, which its provider
// cannot do without an API token. status (unless --drift) and kubeconfig read the backend alone.
func asksTheCloud(o operation.Name) bool {
	switch o {
	case operation.Preview, operation.Up, operation.Refresh, operation.Drift, operation.Destroy, operation.Adopt:
		return true
	}
	return false
}

// withTokens refuses, before any stack runs, a target whose cloud has no API token, in its
// provider config or the environment: its engine would run, record the stack and fail at the
// provider's first call, with the provider's error rather than the variable to set.
func withTokens(targets []deploytarget.Target) error {
	var problems []error
	for _, t := range targets {
		if _, _, token := stackinput.CloudAPI(t.Input); token != "" {
			continue
		}
		c, _, _, ok := stackinput.ProviderConfig(t.Input)
		if !ok {
			continue
		}
		problems = append(problems, &stackinput.Error{Problems: []stackinput.Problem{{File: t.File, RuleID: "token.missing",
			Message: "no " + c.Name + " API token: set " + c.TokenEnv + " (or providerConfig.apiToken in a stack input); nothing was run"}}})
	}
	if len(problems) > 0 {
		return &deploytarget.ProblemsError{Problems: problems}
	}
	return nil
}

// scans tells that the operation scans the fleet (unless Deep) to leave alone the stacks the
// scan vouches for.
func scans(o operation.Name) bool {
	return o == operation.Drift || o == operation.Preview || o == operation.Up
}

// PolicyDeniedError says that a policy denied a manifest, so no stack ran: the outcomes Run
// returns with it say which manifests were denied and which were not run.
type PolicyDeniedError struct{}

func (*PolicyDeniedError) Error() string { return "a manifest was denied by policy: no stack ran" }

// ArgsError is a mistake of the request's paths rather than of a file: a path that is not there,
// several manifests where one is taken, --stack with several.
type ArgsError struct{ Err error }

func (e *ArgsError) Error() string { return e.Err.Error() }
func (e *ArgsError) Unwrap() error { return e.Err }

// Run is the whole deploy pipeline: read and validate every file, evaluate the policy, order the
// stacks by their references, refuse what the deployed clusters' regions or the cloud's offer
// rule out and what the guard refuses, then run the operation over every stack through the
// queue. Every problem of the input comes back at once as a *ProblemsError before any stack is
// touched (a mistake of the paths as an *ArgsError); a policy's denial as the outcomes and a *PolicyDeniedError. Otherwise the outcomes
// say what each stack did, and the error is nil.
func Run(ctx context.Context, r Request) ([]outcome.Outcome, error) {
	if r.Op.run == nil || r.Backend == nil {
		return nil, errors.New("pipeline.Run: the request needs an Op to run and a Backend to open")
	}
	texts := map[string][]byte{} // each manifest's text, for the lines of the fields a check names
	files := r.Files
	if len(files.Reader.Kinds) == 0 {
		// The kinds a file may name are the request's unless the reader was given others.
		files.Reader.Kinds = files.Kinds.Names()
	}
	files.Text = func(t deploytarget.Target, data []byte) { texts[t.Key()] = data }
	targets, err := r.targets(files)
	var problems *deploytarget.ProblemsError
	if err != nil && !errors.As(err, &problems) {
		return nil, &ArgsError{Err: err}
	}
	if err != nil {
		return nil, err
	}
	for i := range targets {
		targets[i].Retarget = r.Retarget
	}
	if r.ChangedSince != "" {
		if r.Manifests != nil {
			return nil, &ArgsError{Err: errors.New("--changed-since needs files in a git work tree, and the manifests given are none")}
		}
		if r.Whole {
			return nil, &ArgsError{Err: errors.New("--changed-since does not go with a plan, which is applied whole")}
		}
		if r.changed, err = changed.Files(ctx, gitDir(r.Paths), r.ChangedSince); err != nil {
			return nil, &ArgsError{Err: err}
		}
	}
	b, err := r.Backend()
	if err != nil {
		return nil, err
	}
	return r.run(ctx, b, targets, texts)
}

// targets are the request's: its manifests read already, or its paths read by files.
func (r Request) targets(files deploytarget.Files) ([]deploytarget.Target, error) {
	if r.Manifests != nil {
		if len(r.Paths) > 0 {
			return nil, errors.New("pipeline.Run: a request takes paths or manifests, not both")
		}
		return files.Read(r.Manifests)
	}
	return files.Targets(r.Paths)
}

// run is Run once the targets are read and the backend open.
func (r Request) run(ctx context.Context, b stackstate.Backend, targets []deploytarget.Target, texts map[string][]byte) ([]outcome.Outcome, error) {
	// The run lists each cloud account once, for its fleet scan and for every look-up by name of
	// its stacks and their programs (package runlist).
	lists := runlist.New()
	ctx = runlist.With(ctx, lists)
	for i := range targets {
		targets[i] = targets[i].WithRunLists(lists)
	}
	exists := func(key string) (bool, error) {
		project, stack, _ := strings.Cut(key, "/")
		return b.Exists(ctx, project, stack)
	}
	sorted, deps, err := queue.Order(targets, exists)
	if err != nil {
		return nil, err
	}
	results, denied, err := r.evaluatePolicy(ctx, b, sorted, texts)
	if err != nil || denied != nil {
		return denied, err
	}
	if b.RunsProviders() && asksTheCloud(r.Op.Operation()) {
		if err := withTokens(sorted); err != nil {
			return nil, err
		}
		if err := sandboxRunning(sorted); err != nil {
			return nil, err
		}
	}
	// What the clouds' answers say of their accounts' requests an hour, from the run's first
	// request on (the check of what the cloud offers, the fleet scan's lists), paces the run to
	// what the account has left (queue.Heard).
	var heard *queue.Heard
	if r.Pace != nil {
		heard = queue.Listen()
		defer heard.Stop()
	}
	if checksOffer(r.Op.Operation()) {
		if err := r.checkBeforeEngine(ctx, b, sorted, texts); err != nil {
			return nil, err
		}
	}
	kept := r.changedOnly(sorted, deps)
	var scanned map[string]deploy.Scanned
	if !r.Deep && (r.Scan || scans(r.Op.Operation())) {
		scanned = r.scanFleet(ctx, b, keptOf(sorted, kept))
		if engineRuns(scanned) {
			// The scan's lists of the cloud's clusters and the stacks' records it read are
			// garbage now (but the parses it kept for the stacks it leaves to run, at most
			// stackstate.ParsedStatesMax), yet the process keeps the memory they took (a few hundred MB at
			// 10,000 stacks) until the Go runtime gives it back bit by bit. The engines and
			// plugins about to start need it more: give it back at once.
			debug.FreeOSMemory()
		}
	}
	outcomes, err := r.runQueue(ctx, b, sorted, deps, scanned, kept, heard)
	for i := range outcomes {
		outcomes[i].Policy = results[outcomes[i].Target.Key()]
	}
	return outcomes, err
}

// say tells the user a line, when anyone listens.
func (r Request) say(line string) {
	if r.Say != nil {
		r.Say(line)
	}
}

// evaluatePolicy evaluates the policy over every target, each against the manifest its stack
// last deployed (read from the backend, never the cloud), and says each broken rule. When a rule
// denies any manifest, no stack runs: the outcomes returned say which manifests were denied and
// which were not run, with a *PolicyDeniedError. The results are each stack's broken rules.
func (r Request) evaluatePolicy(ctx context.Context, b stackstate.Backend, targets []deploytarget.Target, texts map[string][]byte) (
	map[string][]policy.Result, []outcome.Outcome, error) {
	if r.Policy == nil {
		return nil, nil, nil
	}
	results := map[string][]policy.Result{}
	denied := false
	for _, t := range targets {
		rs, err := Judge(ctx, r.Policy, b, deploytarget.Manifest{Target: t, Data: texts[t.Key()]})
		if err != nil {
			return nil, nil, err
		}
		results[t.Key()] = rs
		for _, res := range rs {
			r.say(res.String())
			denied = denied || res.Denied()
		}
	}
	if !denied {
		return results, nil, nil
	}
	outcomes := make([]outcome.Outcome, len(targets))
	for i, t := range targets {
		rs := results[t.Key()]
		outcomes[i] = outcome.Outcome{Target: t, Status: outcome.Skipped, Reason: "not run: a manifest was denied by policy", Policy: rs}
		if policy.Denied(rs) {
			outcomes[i] = outcome.Outcome{Target: t, Status: outcome.Blocked, Reason: "denied by policy", Err: &policy.Error{Results: rs}, Policy: rs}
		}
	}
	return results, outcomes, &PolicyDeniedError{}
}

// Judge evaluates the policy over the manifest m (its target, and its text for the lines a rule
// names), against the manifest its stack last deployed (read from the backend, never the cloud).
// It is the one judgement of a manifest: Run judges every target so before any stack runs, and a
// service judges a request's body so before it saves it, with the manifest it hands on to its
// worker's Run, so that a rule reading old judges the same at both times.
func Judge(ctx context.Context, p *policy.Policy, b stackstate.Backend, m deploytarget.Manifest) ([]policy.Result, error) {
	t := m.Target
	old, err := deploytarget.LastDeployed(ctx, b, t)
	if err != nil {
		return nil, err
	}
	in := policy.Input{File: t.File, Data: m.Data, Manifest: t.Input, Old: old}
	if d, ok := clouds.OfInput(t.Input); ok {
		prices := d.Prices()
		in.Prices = &prices
	}
	return p.Evaluate(in)
}

// checkBeforeEngine refuses, before any stack runs, a pool in another region than the deployed
// cluster it references (one not among the files given, which Files checked), and what the
// cloud does not offer. Every refusal is in the *ProblemsError returned.
func (r Request) checkBeforeEngine(ctx context.Context, b stackstate.Backend, targets []deploytarget.Target, texts map[string][]byte) error {
	problems, err := deploytarget.DeployedRegionMismatches(ctx, b, r.Files.Kinds, targets, func(key string) []byte {
		return texts[key]
	})
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return &deploytarget.ProblemsError{Problems: problems}
	}
	return r.checkOffered(ctx, b, targets, texts)
}

// checkOffered asks each target's cloud, when a token is there, what it offers now, and refuses
// the regions, Kubernetes versions and node sizes it does not: validate only warns of them (its
// table may be older than the cloud), the cloud's own list decides. One call per cloud per run
// (clouds.Offered); without a token nothing is asked. A cloud that does not answer is said once,
// and the run goes on: the engine meets the same cloud. What a stack runs already is kept,
// offered or not.
func (r Request) checkOffered(ctx context.Context, b stackstate.Backend, targets []deploytarget.Target, texts map[string][]byte) error {
	var problems []error
	warned := map[string]bool{}
	for _, t := range targets {
		cloud, base, token := stackinput.CloudAPI(t.Input)
		if token == "" {
			continue
		}
		cat, err := clouds.Offered(ctx, cloud, base, token)
		if err != nil {
			if !warned[cloud] {
				warned[cloud] = true
				r.say(fmt.Sprintf("warning: %v; regions, Kubernetes versions and sizes are not checked against %s's list", err, cloud))
			}
			continue
		}
		data := texts[t.Key()]
		if len(catalogue.Refusals(t.File, data, t.Input, nil, cat)) == 0 {
			continue
		}
		// Only now is the stack read: it is asked only of a manifest the cloud's list refuses.
		var old proto.Message
		if old, err = deploytarget.LastDeployed(ctx, b, t); err != nil {
			return err
		}
		if refusals := catalogue.Refusals(t.File, data, t.Input, old, cat); len(refusals) > 0 {
			problems = append(problems, &stackinput.Error{Problems: refusals})
		}
	}
	if len(problems) > 0 {
		return &deploytarget.ProblemsError{Problems: problems}
	}
	return nil
}

// runQueue runs the operation over every target through the queue, after the guard: with Whole,
// one refusal refuses all and nothing runs.
func (r Request) runQueue(ctx context.Context, b stackstate.Backend, sorted []deploytarget.Target, deps map[string][]string, scanned map[string]deploy.Scanned,
	kept map[string]bool, heard *queue.Heard) ([]outcome.Outcome, error) {
	var refused map[string]error
	if r.Guard != nil {
		var err error
		if refused, err = r.Guard(ctx, b, sorted); err != nil {
			return nil, err
		}
	}
	if r.Whole && len(refused) > 0 {
		// Nothing runs: each stack says its own reason, none is said to be skipped for another's.
		outcomes := make([]outcome.Outcome, len(sorted))
		for i, t := range sorted {
			outcomes[i] = outcome.Refused(refused[t.Key()])
			outcomes[i].Target = t
		}
		return outcomes, nil
	}
	d := &deploy.Deployer{Backend: b, Throttled: retry.CloudRetryAfter, Say: r.Say, Scanned: scanned, Rotating: r.Rotating}
	if r.Progress != nil {
		d.Progress = r.Progress(len(sorted))
	}
	d.Pace = r.pacer(ctx, sorted, scanned, kept, refused, runlist.Of(ctx), heard)
	if d.Pace != nil {
		defer r.sayHourLeft(ctx, accountsOf(sorted), d.Pace.Budgets())
	}
	q := queue.Queue{Parallel: r.Parallel, Reverse: r.Op.Operation().Reverse(), StackTimeout: r.StackTimeout, SkipBlocked: r.SkipBlocked,
		Recovery: d.Recovery}
	return q.Run(ctx, sorted, deps, func(ctx context.Context, t deploytarget.Target) outcome.Outcome {
		if err := refused[t.Key()]; err != nil {
			out := outcome.Refused(err)
			out.Target = t
			return out
		}
		if kept != nil && !kept[t.Key()] {
			out := outcome.NotRun(outcome.LeftOut, "")
			out.SayReason(outcome.SaysFirst, "not run: ", "its manifest did not change since "+r.ChangedSince)
			out.Target = t
			return out
		}
		return r.Op.run(ctx, d, t)
	}), nil
}

// changedOnly are the keys of the targets a run limited to r.Changed runs: those whose manifest
// changed and those that reference them, directly or through others. nil when the run is not
// limited.
func (r Request) changedOnly(sorted []deploytarget.Target, deps map[string][]string) map[string]bool {
	if r.changed == nil {
		return nil
	}
	kept := map[string]bool{}
	// The stacks that reference each, indexed once: a stack and those that reference it, directly
	// or through others (queue.Dependants), are then kept in one walk, not one over every
	// reference of the fleet for each changed stack.
	referencedBy := map[string][]string{}
	for k, ds := range deps {
		for _, d := range ds {
			referencedBy[d] = append(referencedBy[d], k)
		}
	}
	var keep func(key string)
	keep = func(key string) {
		if kept[key] {
			return // and those that reference it (Order refuses a cycle)
		}
		kept[key] = true
		for _, k := range referencedBy[key] {
			keep(k)
		}
	}
	for _, t := range sorted {
		if r.changed[canonical(t.File)] {
			keep(t.Key())
		}
	}
	r.say(fmt.Sprintf("--changed-since %s: %d of %d stacks run (their manifests changed since, or they reference one that did)",
		r.ChangedSince, len(kept), len(sorted)))
	return kept
}

// gitDir is where the commit --changed-since names is looked up: the first path's folder.
func gitDir(paths []string) string {
	if len(paths) == 0 {
		return "."
	}
	if fi, err := os.Stat(paths[0]); err == nil && fi.IsDir() {
		return paths[0]
	}
	return filepath.Dir(paths[0])
}

// keptOf are the targets kept holds, all of them when kept is nil.
func keptOf(targets []deploytarget.Target, kept map[string]bool) []deploytarget.Target {
	if kept == nil {
		return targets
	}
	var out []deploytarget.Target
	for _, t := range targets {
		if kept[t.Key()] {
			out = append(out, t)
		}
	}
	return out
}

// canonical is a file's absolute path with its links resolved, as git names it.
func canonical(file string) string {
	abs, err := filepath.Abs(file)
	if err != nil {
		return file
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// engineRuns says whether a stack the fleet scan judged still runs through the engine.
func engineRuns(scanned map[string]deploy.Scanned) bool {
	for _, sc := range scanned {
		if !sc.Unchanged {
			return true
		}
	}
	return false
}
