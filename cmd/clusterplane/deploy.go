package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/deploy/autostack"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/pipeline"
	"github.com/clusterplane/clusterplane/pkg/deploy/queue"
	"github.com/clusterplane/clusterplane/pkg/deploy/render"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/redact"
	"github.com/pkg/errors"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// stackTimeout bounds one stack's operation: a cluster takes minutes, never hours.
const stackTimeout = 2 * time.Hour

// deployEnv is how the deploy commands reach the engine, held by the factory. Tests set backend
// to a fake (deploytest); otherwise the first command that needs it opens the Automation API's.
type deployEnv struct {
	backend stackstate.Backend
	// interactive overrides whether standard input is a terminal someone answers at.
	interactive *bool
	// redactor removes the run's secrets from what the deploy commands print (factory.redactor),
	// made once.
	redactor   *redact.Redactor
	redactOnce sync.Once
	// streams is where the stacks' engine progress goes (factory.streams).
	streams *render.Streams
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
	// verbose shows a fleet's progress and every stack's changes; all lists every stack.
	verbose, all bool
	// oneManifest is set for a command that acts on the one manifest of the one file it takes.
	oneManifest bool
	// policyOptions are --policy's (preview, up).
	policyOptions policyOptions
	// retarget is --retarget (preview, up): another manifest onto a stack, on purpose.
	retarget bool
	// refresh is --refresh (preview, up): the cloud read first, on unless set false.
	refresh bool
	// deep is --deep (drift, preview, up), changedSince --changed-since (preview, up): fleetFlags.
	deep         bool
	changedSince string
	// changedSinceFlag is the flag, to tell --changed-since="" from no flag at all.
	changedSinceFlag *pflag.Flag
	// offline is set for a command that reaches no cloud (export pko): the sandbox's refusal of
	// a provider config's own token or URL, which keeps deploys inside it, does not apply.
	offline bool
	// reportFile is --report-file: every stack's row, JSON or CSV by its extension.
	reportFile string
}

// refreshFlag adds --refresh to preview and up, which read the cloud first unless it is false.
func (o *deployOptions) refreshFlag(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&o.refresh, "refresh", true, "read each stack's resources from the cloud first and put back what "+
		"changed there; --refresh=false trusts the state of a manifest unchanged since its last up")
}

// fleetFlags adds --deep (drift, preview and up otherwise scan the fleet first) and, with
// changedSince, --changed-since (preview, up).
func (o *deployOptions) fleetFlags(cmd *cobra.Command, changedSince bool) {
	cmd.Flags().BoolVar(&o.deep, "deep", false, "run the engine (the provider's refresh) for every stack; without it each cloud's "+
		"clusters are listed once first, and only the stacks that list cannot vouch for run (that list also finds, for drift, a "+
		"cluster carrying a stack's mark that the stack does not record: --deep does not)")
	if changedSince {
		cmd.Flags().StringVar(&o.changedSince, "changed-since", "", "run only the manifests changed since this git commit "+
			"(committed or not, untracked ones too) and the stacks that reference them, as a pull request's CI wants")
		o.changedSinceFlag = cmd.Flags().Lookup("changed-since")
	}
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
	cmd.Flags().StringVar(&o.reportFile, "report-file", "", "also write one row a stack to this file, JSON or CSV by its extension, even when the run fails")
	cmd.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "show every stack's engine progress as it runs, each line after its stack's "+
		"name (by default only one stack's, and a failed stack's last lines under its row), and every stack's changes field by field")
}

// allFlag adds --all to a command whose text lists only the stacks that did or would do something.
func (o *deployOptions) allFlag(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&o.all, "all", false, "list every stack, those that need nothing too (unchanged, not run): by default they are only counted")
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
	if f := o.changedSinceFlag; f != nil && f.Changed && strings.TrimSpace(o.changedSince) == "" {
		// An empty value (an unset CI variable, --changed-since=$BASE) would otherwise run every
		// stack, as if the flag were not given.
		return errors.New(`--changed-since "": names no commit (a CI variable left empty?); give the base commit, e.g. origin/main`)
	}
	if o.reportFile != "" {
		_, err := runreport.ReportFileFormat(o.reportFile)
		return err
	}
	return nil
}

// targets reads and validates every file (once each) into targets (deploy.Files), for a
// command that checks them before the pipeline runs: every problem of every file is said.
func (f *factory) targets(o *deployOptions) ([]deploytarget.Target, error) {
	targets, err := f.files(o).Targets(o.files)
	var problems *deploytarget.ProblemsError
	if errors.As(err, &problems) {
		return nil, f.exit(nil, err)
	}
	return targets, err
}

// files is how the deploy commands read their files into targets.
func (f *factory) files(o *deployOptions) deploytarget.Files {
	return deploytarget.Files{Reader: f.reader, Kinds: f.kinds, Stack: o.stack, One: o.oneManifest, Offline: o.offline}
}

// backend opens the engine's backend once per run.
func (f *factory) backend(o *deployOptions) (stackstate.Backend, error) {
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

// runOp is how a deploy command runs the pipeline (pipeline.Run) and renders its outcomes (-o).
type runOp struct {
	// step is the operation each stack gets, and names the run.
	step pipeline.Step
	// skipBlocked skips the dependants of a blocked stack (dependants first is the operation's:
	// operation.Name.Reverse).
	skipBlocked bool
	// render prints the outcomes in text; nil for the table. summary ends its text with the
	// table's summary line (adopt: its lines say each stack, the summary counts them).
	render  func(w io.Writer, outcomes []outcome.Outcome)
	summary bool
	// verbatim prints render's text as it is, unredacted: the user's data (a kubeconfig), which
	// holds credentials by design and no word of the engine's.
	verbatim bool
	// guard, when set, refuses targets before anything runs: their keys and why.
	guard func(ctx context.Context, b stackstate.Backend, targets []deploytarget.Target) (map[string]error, error)
	// finish, when set, acts on the outcomes before they are reported (preview --save-plan); its
	// error is said and makes the command fail.
	finish func(outcomes []outcome.Outcome) error
	// whole tells that guard refuses every target or none (up --plan, destroy).
	whole bool
	// pace, when set, paces the run's operations by that estimate of their requests; scan scans the
	// fleet first, as drift does (status --drift).
	pace queue.Requests
	scan bool
	// filter, when set, keeps the outcomes shown and written (status --only, -l, --kind).
	filter func([]outcome.Outcome) []outcome.Outcome
}

// runDeploy runs the pipeline with the command's flags, says what it says on stderr, and
// reports the outcomes; the error it returns carries the exit code (exit).
func (f *factory) runDeploy(o *deployOptions, r runOp) error {
	if err := o.validate(); err != nil {
		return err
	}
	pol, err := o.loadPolicy()
	if err != nil {
		fmt.Fprintln(f.Stderr, err)
		return cli.Exit(exitcode.Invalid)
	}
	f.redactor() // made once, before any stack runs
	ctx, stop := cli.Interruptible()
	defer stop()
	start := time.Now()
	outcomes, err := pipeline.Run(ctx, pipeline.Request{Op: r.step, Paths: o.files, Files: f.files(o),
		Backend: func() (stackstate.Backend, error) { return f.backend(o) },
		Policy:  pol, Retarget: o.retarget, Deep: o.deep, Scan: r.scan, ChangedSince: o.changedSince, Parallel: o.parallel, StackTimeout: o.timeout,
		SkipBlocked: r.skipBlocked, Guard: r.guard, Whole: r.whole, Pace: r.pace, Progress: f.streams(o).For,
		Say: func(line string) { fmt.Fprintln(f.Stderr, f.redactor().String(line)) }})
	f.streams(o).Flush()
	if err != nil && outcomes == nil {
		// Nothing ran: the report file still says so (no row) instead of keeping an older run's.
		if werr := f.writeReportFile(o, runreport.NewReport(r.step.Operation(), nil), nil); werr != nil {
			f.printError(werr)
		}
		return f.exit(nil, err)
	}
	if err == nil && r.finish != nil {
		if ferr := r.finish(outcomes); ferr != nil {
			f.printError(ferr)
			err = ferr
		}
	}
	shown := outcomes
	if r.filter != nil {
		// Never nil: exit takes nil outcomes for a run that never got to a stack.
		shown = append([]outcome.Outcome{}, r.filter(outcomes)...)
	}
	if rerr := f.report(r, o, shown, time.Since(start)); rerr != nil {
		return rerr
	}
	// The code is the shown stacks': a stack the filter left out is not what was asked about.
	return f.exit(shown, err)
}

// exit says the pipeline's error (each of an input's problems on its line, a mistake of the
// command line as cobra says it) and maps it and the
// outcomes to the exit code, once for every deploy command: an error is invalid input, else
// interrupted 130, else 4 for a stack status finds not ready, else 3 for anything blocked or
// drifted (it must not pass unasked), else 1 for a failure or a skip. Errors already said (a
// policy's denial, reported with the outcomes; a --save-plan failure) are not said again.
func (f *factory) exit(outcomes []outcome.Outcome, err error) error {
	var problems *deploytarget.ProblemsError
	var denied *pipeline.PolicyDeniedError
	var args *pipeline.ArgsError
	switch {
	case errors.As(err, &args):
		return args.Err // a mistake of the command line: said with the usage hint, exit 2
	case errors.As(err, &problems):
		for _, p := range problems.Problems {
			fmt.Fprintln(f.Stderr, f.redactor().String(p.Error()))
		}
		return cli.Exit(exitcode.Invalid)
	case err != nil && outcomes == nil:
		f.printError(err)
		return cli.Exit(exitcode.Invalid)
	case errors.As(err, &denied):
		return cli.Exit(exitcode.Invalid)
	}
	code := runreport.ExitCode(outcomes)
	if err != nil {
		code = max(code, exitcode.Invalid)
	}
	return cli.Exit(code)
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
