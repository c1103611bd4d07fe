package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/autostack"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/redact"
	"github.com/pkg/errors"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// stackTimeout bounds one stack's operation: a cluster takes minutes, never hours.
const stackTimeout = 2 * time.Hour

// deployEnv is how the deploy commands reach the engine, held by the factory. Tests set backend
// to a fake (deploytest); otherwise the first command that needs it opens the Automation API's.
type deployEnv struct {
	backend deploy.Backend
	// interactive overrides whether standard input is a terminal someone answers at.
	interactive *bool
	// redactor removes the run's secrets from what the deploy commands print (factory.redactor),
	// made once.
	redactor   *redact.Redactor
	redactOnce sync.Once
	// flushes write what the progress writers hold of unfinished lines; progressMu guards them.
	flushes    []func()
	progressMu sync.Mutex
	// warned are the price warnings already said this run (factory.prices).
	warned sync.Map
}

// deployOptions are the flags every deploy command shares.
type deployOptions struct {
	files           []string
	stack           string
	parallel        int
	secretsProvider string
	timeout         time.Duration
	// quiet leaves the engine's progress out: the report at the end is all that is printed.
	quiet  bool
	output *cli.Format
	// oneManifest is set for a command that acts on the one manifest of the one file it takes.
	oneManifest bool
	// policyOptions are --policy's (preview, up).
	policyOptions policyOptions
	// retarget is --retarget (preview, up): another manifest onto a stack, on purpose.
	retarget bool
	// offline is set for a command that reaches no cloud (export pko): the sandbox's refusal of
	// a provider config's own token or URL, which keeps deploys inside it, does not apply.
	offline bool
}

// retargetFlag adds --retarget to preview and up.
func (o *deployOptions) retargetFlag(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&o.retarget, "retarget", false, "deploy a manifest onto a --stack that deployed another "+
		"metadata.name, on purpose: what the stack deployed is deleted and the manifest's resources created "+
		"(preview counts it as a replacement, exit 3); without it this is refused. A stack's metadata.env never changes")
}

// flags adds the shared flags to cmd; formats are the -o values it prints (text first).
func (o *deployOptions) flags(cmd *cobra.Command, formats ...string) {
	o.oneStackFlags(cmd, formats...)
	o.oneManifest = false
	cmd.Flags().IntVar(&o.parallel, "parallel", 4, "stacks run at once; a stack waits for the stacks it references")
	cmd.Flags().DurationVar(&o.timeout, "stack-timeout", stackTimeout, "how long one stack's operation may take")
	cmd.Flags().BoolVarP(&o.quiet, "quiet", "q", false, "print no engine progress, only the report at the end (each failure's cause is in it)")
}

// oneStackFlags adds the shared flags but --parallel and --stack-timeout to a command that works
// on the one stack of the one file it takes (kubeconfig, adopt), so that its help lists only
// flags it uses: one stack runs at a time, within the default time.
func (o *deployOptions) oneStackFlags(cmd *cobra.Command, formats ...string) {
	o.parallel, o.timeout, o.oneManifest = 1, stackTimeout, true
	cmd.Flags().StringVar(&o.stack, "stack", "", "the stack of the one manifest given, instead of <name>-<env>")
	o.output = cli.OutputFlag(cmd, append([]string{"text", "json"}, formats...)...)
	cmd.Args = cobra.MinimumNArgs(1)
	cmd.ValidArgsFunction = cli.ManifestFiles
}

// secretsFlag adds --secrets-provider to a command that creates stacks (preview, up, adopt): a
// stack keeps the provider it was created with, so no other command uses it.
func (o *deployOptions) secretsFlag(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.secretsProvider, "secrets-provider", "", "how the secrets of stacks created now are "+
		"encrypted: passphrase (default), awskms://..., gcpkms://..., azurekeyvault://..., hashivault://...; "+
		"default $"+autostack.SecretsProviderEnv)
}

// validate checks the flags before anything is read.
func (o *deployOptions) validate() error {
	if o.parallel < 1 {
		return errors.Errorf("--parallel %d: at least 1 stack must run", o.parallel)
	}
	if o.timeout <= 0 {
		return errors.Errorf("--stack-timeout %s: must be positive", o.timeout)
	}
	return nil
}

// targets reads and validates every file (once each) into targets (deploy.Files): every problem
// of every file is said, each on its line, before any stack is touched.
func (f *factory) targets(o *deployOptions) ([]deploy.Target, error) {
	targets, err := f.files(o).Targets(o.files)
	var problems *deploy.ProblemsError
	if errors.As(err, &problems) {
		for _, p := range problems.Problems {
			fmt.Fprintln(f.Stderr, p)
		}
		return nil, cli.Exit(exitcode.Invalid)
	}
	return targets, err
}

// files is how the deploy commands read their files into targets.
func (f *factory) files(o *deployOptions) deploy.Files {
	return deploy.Files{Reader: f.reader, Kinds: f.kinds, Stack: o.stack, One: o.oneManifest, Text: o.keepText, Offline: o.offline}
}

// backend opens the engine's backend once per run.
func (f *factory) backend(o *deployOptions) (deploy.Backend, error) {
	if f.deploy.backend != nil {
		return f.deploy.backend, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, errors.Wrap(err, "find the clusterplane binary")
	}
	b, err := autostack.New(autostack.Options{SecretsProvider: o.secretsProvider, Plugin: exe})
	if err != nil {
		return nil, err
	}
	f.deploy.backend = b
	return b, nil
}

// runOp is how a deploy command runs: every target through the queue, in the order of their
// references, and the outcomes rendered as the command's -o asks. It returns the exit code's error.
type runOp struct {
	name string
	// reverse runs dependants first (destroy); skipBlocked skips the dependants of a blocked stack.
	reverse, skipBlocked bool
	op                   func(ctx context.Context, d *deploy.Deployer, t deploy.Target) deploy.Outcome
	// render prints the outcomes in text; nil for the table.
	render func(w io.Writer, outcomes []deploy.Outcome)
	// verbatim prints render's text as it is, unredacted: the user's data (a kubeconfig), which
	// holds credentials by design and no word of the engine's.
	verbatim bool
	// guard, when set, refuses targets before anything runs: their keys and why.
	guard func(ctx context.Context, b deploy.Backend, o *deployOptions, targets []deploy.Target) (map[string]error, error)
	// finish, when set, acts on the outcomes before they are reported (preview --save-plan); its
	// error is said and makes the command fail.
	finish func(outcomes []deploy.Outcome) error
	// whole tells that guard refuses every target or none (up --plan).
	whole bool
	// pace, when set, paces the run's operations by that estimate of their requests.
	pace deploy.Requests
}

func (f *factory) runDeploy(o *deployOptions, r runOp) error {
	if err := o.validate(); err != nil {
		return err
	}
	if err := o.loadPolicy(); err != nil {
		fmt.Fprintln(f.Stderr, err)
		return cli.Exit(exitcode.Invalid)
	}
	targets, err := f.targets(o)
	if err != nil {
		return err
	}
	for i := range targets {
		targets[i].Retarget = o.retarget
	}
	f.redactor() // made once, before any stack runs
	backend, err := f.backend(o)
	if err != nil {
		f.printError(err)
		return cli.Exit(exitcode.Invalid)
	}
	ctx, stop := interruptible()
	defer stop()
	exists := func(key string) (bool, error) {
		project, stack, _ := strings.Cut(key, "/")
		return backend.Exists(ctx, project, stack)
	}
	sorted, deps, err := deploy.Order(targets, exists)
	if err != nil {
		f.printError(err)
		return cli.Exit(exitcode.Invalid)
	}
	// A policy's denial is said before any stack runs, and then none does.
	if denied, err := f.checkPolicy(ctx, backend, o, sorted); err != nil {
		f.printError(err)
		return cli.Exit(exitcode.Invalid)
	} else if denied != nil {
		if err := f.report(r, o, denied); err != nil {
			return err
		}
		return cli.Exit(exitcode.Invalid)
	}
	// What the cloud does not offer is refused before any stack runs (preview and up only), after
	// the policy, which asks no cloud.
	if r.name == "preview" || r.name == "up" {
		if err := f.checkClusterRegions(ctx, backend, o, sorted); err != nil {
			return err
		}
		if err := f.checkOffered(ctx, backend, o, sorted); err != nil {
			return err
		}
	}
	var refused map[string]error
	if r.guard != nil {
		if refused, err = r.guard(ctx, backend, o, sorted); err != nil {
			f.printError(err)
			return cli.Exit(exitcode.Invalid)
		}
	}
	if r.whole && len(refused) > 0 {
		// Nothing runs: each stack says its own reason, none is said to be skipped for another's.
		outcomes := make([]deploy.Outcome, len(sorted))
		for i, t := range sorted {
			outcomes[i] = deploy.Outcome{Target: t, Status: deploy.Blocked, Reason: "refused", Err: refused[t.Key()]}
		}
		if err := f.report(r, o, outcomes); err != nil {
			return err
		}
		return cli.Exit(exitCode(outcomes))
	}
	d := &deploy.Deployer{Backend: backend, Progress: f.progress(o, len(sorted)), Throttled: deploy.CloudRetryAfter}
	if r.pace != nil {
		d.Pace = pace(f.Stderr, r.name, sorted, r.pace)
	}
	q := deploy.Queue{Parallel: o.parallel, Reverse: r.reverse, StackTimeout: o.timeout, SkipBlocked: r.skipBlocked,
		Recovery: d.Recovery}
	outcomes := q.Run(ctx, sorted, deps, func(ctx context.Context, t deploy.Target) deploy.Outcome {
		if err := refused[t.Key()]; err != nil {
			return deploy.Outcome{Target: t, Status: deploy.Blocked, Reason: "refused", Err: err}
		}
		return r.op(ctx, d, t)
	})
	f.flushProgress()
	o.withPolicy(outcomes)
	code := exitCode(outcomes)
	if r.finish != nil {
		if err := r.finish(outcomes); err != nil {
			f.printError(err)
			code = max(code, exitcode.Invalid)
		}
	}
	if err := f.report(r, o, outcomes); err != nil {
		return err
	}
	return cli.Exit(code)
}

// exitCode maps the outcomes to the exit code, once for every deploy command: interrupted 130,
// else 4 for a stack status finds not ready (notReady), else 3 for anything blocked or drifted
// (it must not pass unasked), else 1 for a failure or a skip.
func exitCode(outcomes []deploy.Outcome) int {
	code := exitcode.OK
	for _, o := range outcomes {
		switch o.Status {
		case deploy.Cancelled:
			return exitcode.Interrupted
		case deploy.Blocked, deploy.Drifted:
			code = max(code, exitcode.Blocked)
		case deploy.Failed, deploy.Skipped:
			code = max(code, exitcode.Invalid)
		}
		if o.Report != nil && notReady(o.Report) {
			code = max(code, exitcode.NotReady)
		}
	}
	return code
}

// interruptible is the context of a command that runs engines or cloud requests: the first Ctrl-C
// cancels it, so that what runs stops cleanly (each engine interrupted, the report printed, exit
// 130). After it the signal is no longer caught: a second Ctrl-C ends clusterplane at once, as the
// engine's own "press ^C again to terminate immediately" says, and the engines' supervisor ends
// them with it.
func interruptible() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}

// notReady tells whether a stack's Ready condition says its last update failed (or was
// interrupted) or that it is not at its manifest's generation, or (status --drift) its Drifted
// condition says the cloud differs. A stack whose reference is gone or that was destroyed on
// purpose is reported, not failed on.
func notReady(st *deploy.StackStatus) bool {
	for _, c := range st.Conditions {
		switch {
		case c.Type == "Drifted" && c.Status == "True":
			// A script gating on status --drift must not read drift as fine.
			return true
		case c.Type != "Ready" || c.Status == "True":
		case c.Reason == "NotDeployed", c.Reason == "ManifestChanged", c.Reason == "PendingCreates",
			c.Reason == "RotationUnderWay", c.Reason == "OrphanPool", strings.HasPrefix(c.Reason, "Last"):
			return true
		}
	}
	return false
}

// interactive tells whether standard input is a terminal someone answers questions at: a pipe
// or /dev/null is not, though /dev/null is a character device.
func (f *factory) interactive() bool {
	if f.deploy.interactive != nil {
		return *f.deploy.interactive
	}
	file, ok := f.Stdin.(*os.File)
	return ok && term.IsTerminal(int(file.Fd()))
}

// confirm shows a plan and asks a yes/no question on the terminal, one at a time: stacks deploy
// in parallel. The plan is redacted as everything the deploy commands print.
func (f *factory) confirm(plan, question string) bool {
	f.askMu.Lock()
	defer f.askMu.Unlock()
	fmt.Fprint(f.Stderr, f.redactor().String(plan))
	fmt.Fprintf(f.Stderr, "%s [y/N] ", question)
	var answer string
	_, _ = fmt.Fscanln(f.Stdin, &answer)
	return strings.EqualFold(answer, "y") || strings.EqualFold(answer, "yes")
}

// stillReferenced refuses to destroy a target that a manifest next to the files given references
// (deploy.Files.DestroyGuard).
func (f *factory) stillReferenced(ctx context.Context, b deploy.Backend, o *deployOptions, targets []deploy.Target) (map[string]error, error) {
	return f.files(o).DestroyGuard(ctx, b, o.files, targets)
}

// checkClusterRegions refuses, before any stack runs, a pool in another region than the
// deployed cluster it references (one not among the files given, which Files checked).
func (f *factory) checkClusterRegions(ctx context.Context, b deploy.Backend, o *deployOptions, targets []deploy.Target) error {
	problems, err := deploy.DeployedRegionMismatches(ctx, b, f.kinds, targets, func(key string) []byte {
		return o.policyOptions.texts[key]
	})
	if err != nil {
		f.printError(err)
		return cli.Exit(exitcode.Invalid)
	}
	for _, p := range problems {
		fmt.Fprintln(f.Stderr, f.redactor().String(p.Error()))
	}
	if len(problems) > 0 {
		return cli.Exit(exitcode.Invalid)
	}
	return nil
}
