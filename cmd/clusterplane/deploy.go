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

// deployEnv is how the deploy commands reach the engine. Tests set backend to a fake
// (deploytest); otherwise the first command that needs it opens the Automation API's.
type deployEnv struct {
	backend deploy.Backend
	// interactive overrides whether standard input is a terminal someone answers at.
	interactive *bool
	// redactor removes the run's secrets from what the deploy commands print (app.redactor),
	// made once.
	redactor   *redact.Redactor
	redactOnce sync.Once
	// flushes write what the progress writers hold of unfinished lines; progressMu guards them.
	flushes    []func()
	progressMu sync.Mutex
	// warned are the price warnings already said this run (app.prices).
	warned sync.Map
}

// deployOptions are the flags every deploy command shares.
type deployOptions struct {
	files           []string
	stack           string
	parallel        int
	secretsProvider string
	timeout         time.Duration
	output          *cli.Format
	// oneManifest is set for a command that acts on the one manifest of the one file it takes.
	oneManifest bool
	// policyOptions are --policy's (preview, up).
	policyOptions policyOptions
}

// flags adds the shared flags to cmd; formats are the -o values it prints (text first).
func (o *deployOptions) flags(cmd *cobra.Command, formats ...string) {
	o.oneStackFlags(cmd, formats...)
	o.oneManifest = false
	cmd.Flags().IntVar(&o.parallel, "parallel", 4, "stacks run at once; a stack waits for the stacks it references")
	cmd.Flags().DurationVar(&o.timeout, "stack-timeout", stackTimeout, "how long one stack's operation may take")
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
func (a *app) targets(o *deployOptions) ([]deploy.Target, error) {
	targets, err := a.files(o).Targets(o.files)
	var problems *deploy.ProblemsError
	if errors.As(err, &problems) {
		for _, p := range problems.Problems {
			fmt.Fprintln(a.Stderr, p)
		}
		return nil, cli.Exit(exitcode.Invalid)
	}
	return targets, err
}

// files is how the deploy commands read their files into targets.
func (a *app) files(o *deployOptions) deploy.Files {
	return deploy.Files{Loader: &a.App, Kinds: a.kinds, Stack: o.stack, One: o.oneManifest, Text: o.keepText}
}

// backend opens the engine's backend once per run.
func (a *app) backend(o *deployOptions) (deploy.Backend, error) {
	if a.deploy.backend != nil {
		return a.deploy.backend, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, errors.Wrap(err, "find the clusterplane binary")
	}
	b, err := autostack.New(autostack.Options{SecretsProvider: o.secretsProvider, Plugin: exe})
	if err != nil {
		return nil, err
	}
	a.deploy.backend = b
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
}

func (a *app) runDeploy(o *deployOptions, r runOp) error {
	if err := o.validate(); err != nil {
		return err
	}
	if err := o.loadPolicy(); err != nil {
		fmt.Fprintln(a.Stderr, err)
		return cli.Exit(exitcode.Invalid)
	}
	targets, err := a.targets(o)
	if err != nil {
		return err
	}
	a.redactor() // made once, before any stack runs
	backend, err := a.backend(o)
	if err != nil {
		a.printError(err)
		return cli.Exit(exitcode.Invalid)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	exists := func(key string) (bool, error) {
		project, stack, _ := strings.Cut(key, "/")
		return backend.Exists(ctx, project, stack)
	}
	sorted, deps, err := deploy.Order(targets, exists)
	if err != nil {
		a.printError(err)
		return cli.Exit(exitcode.Invalid)
	}
	// A policy's denial is said before any stack runs, and then none does.
	if denied, err := a.checkPolicy(ctx, backend, o, sorted); err != nil {
		a.printError(err)
		return cli.Exit(exitcode.Invalid)
	} else if denied != nil {
		if err := a.report(r, o, denied); err != nil {
			return err
		}
		return cli.Exit(exitcode.Invalid)
	}
	// What the cloud does not offer is refused before any stack runs (preview and up only), after
	// the policy, which asks no cloud.
	if r.name == "preview" || r.name == "up" {
		if err := a.checkOffered(ctx, backend, o, sorted); err != nil {
			return err
		}
	}
	var refused map[string]error
	if r.guard != nil {
		if refused, err = r.guard(ctx, backend, o, sorted); err != nil {
			a.printError(err)
			return cli.Exit(exitcode.Invalid)
		}
	}
	if r.whole && len(refused) > 0 {
		// Nothing runs: each stack says its own reason, none is said to be skipped for another's.
		outcomes := make([]deploy.Outcome, len(sorted))
		for i, t := range sorted {
			outcomes[i] = deploy.Outcome{Target: t, Status: deploy.Blocked, Reason: "refused", Err: refused[t.Key()]}
		}
		if err := a.report(r, o, outcomes); err != nil {
			return err
		}
		return cli.Exit(exitCode(outcomes))
	}
	d := &deploy.Deployer{Backend: backend, Progress: a.progress(o, len(sorted))}
	q := deploy.Queue{Parallel: o.parallel, Reverse: r.reverse, StackTimeout: o.timeout, SkipBlocked: r.skipBlocked,
		Recovery: d.Recovery}
	outcomes := q.Run(ctx, sorted, deps, func(ctx context.Context, t deploy.Target) deploy.Outcome {
		if err := refused[t.Key()]; err != nil {
			return deploy.Outcome{Target: t, Status: deploy.Blocked, Reason: "refused", Err: err}
		}
		return r.op(ctx, d, t)
	})
	a.flushProgress()
	o.withPolicy(outcomes)
	code := exitCode(outcomes)
	if r.finish != nil {
		if err := r.finish(outcomes); err != nil {
			a.printError(err)
			code = max(code, exitcode.Invalid)
		}
	}
	if err := a.report(r, o, outcomes); err != nil {
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

// notReady tells whether a stack's Ready condition says its last update failed (or was
// interrupted) or that it is not at its manifest's generation. A stack whose reference is gone
// or that was destroyed on purpose is reported, not failed on.
func notReady(st *deploy.StackStatus) bool {
	for _, c := range st.Conditions {
		if c.Type != "Ready" || c.Status == "True" {
			continue
		}
		switch {
		case c.Reason == "NotDeployed", c.Reason == "ManifestChanged", c.Reason == "PendingCreates",
			strings.HasPrefix(c.Reason, "Last"):
			return true
		}
	}
	return false
}

// interactive tells whether standard input is a terminal someone answers questions at: a pipe
// or /dev/null is not, though /dev/null is a character device.
func (a *app) interactive() bool {
	if a.deploy.interactive != nil {
		return *a.deploy.interactive
	}
	f, ok := a.Stdin.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// confirm shows a plan and asks a yes/no question on the terminal, one at a time: stacks deploy
// in parallel. The plan is redacted as everything the deploy commands print.
func (a *app) confirm(plan, question string) bool {
	a.askMu.Lock()
	defer a.askMu.Unlock()
	fmt.Fprint(a.Stderr, a.redactor().String(plan))
	fmt.Fprintf(a.Stderr, "%s [y/N] ", question)
	var answer string
	_, _ = fmt.Fscanln(a.Stdin, &answer)
	return strings.EqualFold(answer, "y") || strings.EqualFold(answer, "yes")
}

func (a *app) deployCommands() []*cobra.Command {
	return []*cobra.Command{a.previewCommand(), a.upCommand(), a.refreshCommand(), a.driftCommand(), a.statusCommand(),
		a.destroyCommand(), a.kubeconfigCommand(), a.adoptCommand()}
}

func (a *app) previewCommand() *cobra.Command {
	o := &deployOptions{}
	cmd := &cobra.Command{
		Use:   "preview FILE|DIR...",
		Short: "Show what deploying manifests would change, on the real Pulumi engine",
		Long: `preview runs each manifest's module in this process through Pulumi's Automation API (the
Pulumi CLI must be on PATH) against its stack, <kind program>/<name>-<env>, and prints the
engine's plan. The state lives at PULUMI_BACKEND_URL, or in a local file backend under your config
folder; PULUMI_CONFIG_PASSPHRASE encrypts its secrets (or --secrets-provider).

With --save-plan FILE the preview reads the cloud first (in memory, as drift does) and writes one
file for every stack: the manifest's digest, the stack's last update and the engine's planned
steps with the fields they change (names only, never a value or a secret), for up --plan FILE.

It exits 3 when something would be replaced, when the engine refuses a change (a protected
cluster), or when the manifest changes what the providers cannot carry out since the last up
(as diff calls it refused); 0 otherwise, 1 for invalid input or a failed preview, or when --policy
(or $CLUSTERPLANE_POLICY) denies a manifest: then no stack is previewed (docs/policy.md).`,
	}
	o.flags(cmd, "markdown")
	o.secretsFlag(cmd)
	savePlan := cmd.Flags().String("save-plan", "", "write the plan of every stack to this file, for up to apply exactly "+
		"(the preview then reads the cloud first, as drift does)")
	o.policyFlag(cmd)
	cmd.RunE = func(_ *cobra.Command, files []string) error {
		o.files = files
		if *savePlan != "" {
			if err := planDestination(*savePlan); err != nil {
				return err
			}
			return a.runDeploy(o, runOp{name: "preview", finish: a.savePlan(*savePlan), op: func(ctx context.Context, d *deploy.Deployer, t deploy.Target) deploy.Outcome {
				return d.PreviewPlan(ctx, t)
			}})
		}
		return a.runDeploy(o, runOp{name: "preview", op: func(ctx context.Context, d *deploy.Deployer, t deploy.Target) deploy.Outcome {
			return d.Preview(ctx, t)
		}})
	}
	return cmd
}

func (a *app) upCommand() *cobra.Command {
	o := &deployOptions{}
	cmd := &cobra.Command{
		Use:   "up FILE|DIR...",
		Short: "Deploy manifests on the real Pulumi engine",
		Long: `up deploys each manifest to its stack (see preview), each after the stacks it references, with
up to --parallel at once. A change the providers cannot carry out since the last up (as diff calls
it refused) is refused before the engine runs. On a terminal, without --yes, each stack that would
change shows its plan (as preview does, each changed field old → new) and asks; only y or yes
deploys it. Without a terminal nothing deploys without --yes. It ends with a table of what was
done, blocked, skipped and failed. It exits 0, 3 when a change was refused or not confirmed
(answered no), 1 when a deployment failed or was skipped, or when --policy (or
$CLUSTERPLANE_POLICY) denies a manifest: then no stack is deployed (docs/policy.md).

A DigitalOcean node pool's rotation its rollout block allows is carried out before the engine runs
(docs/deploying.md, "Rotating node pools"); one that stops (a drain timeout) exits 1 with both
pools in place, and up again resumes it.

up --plan FILE applies a plan preview --save-plan wrote, and nothing else, without asking: every
stack is checked first, and when a manifest differs from the one reviewed, another update landed on
a stack since, or a fresh preview (the cloud read first) would do anything the plan does not say,
nothing is applied, each stack saying what moved (exit 3).`,
	}
	o.flags(cmd)
	o.secretsFlag(cmd)
	o.policyFlag(cmd)
	yes := cmd.Flags().Bool("yes", false, "deploy without asking, replacements included (for CI)")
	planFile := cmd.Flags().String("plan", "", "apply the plan a preview saved, and nothing else: every stack is refused "+
		"when a manifest, a stack or the cloud moved since (the files default to the plan's)")
	cmd.Args = cobra.ArbitraryArgs // up --plan FILE takes the plan's files
	cmd.RunE = func(_ *cobra.Command, files []string) error {
		if *planFile != "" {
			var p *deploy.Plan
			var err error
			if o.files, p, err = planFiles(a, files, *planFile); err != nil {
				return err
			}
			return a.runDeploy(o, runOp{name: "up", skipBlocked: true, whole: true, guard: a.checkPlan(p), op: func(ctx context.Context, d *deploy.Deployer, t deploy.Target) deploy.Outcome {
				return d.Up(ctx, t, deploy.UpOptions{Yes: true, Planned: p.Stack(t.Key())})
			}})
		}
		if len(files) == 0 {
			return errors.New("up takes the manifests to deploy (FILE|DIR...), or --plan FILE")
		}
		o.files = files
		return a.runDeploy(o, runOp{name: "up", skipBlocked: true, op: func(ctx context.Context, d *deploy.Deployer, t deploy.Target) deploy.Outcome {
			return d.Up(ctx, t, deploy.UpOptions{Yes: *yes, Interactive: a.interactive(), Confirm: func(t deploy.Target, r deploy.Result) bool {
				return a.interactive() && a.confirm(upPlan(t, r), fmt.Sprintf("%s: %s. Deploy?", t.File, r.Summary()))
			}})
		}})
	}
	return cmd
}

func (a *app) refreshCommand() *cobra.Command {
	o := &deployOptions{}
	cmd := &cobra.Command{
		Use:   "refresh FILE|DIR...",
		Short: "Read each manifest's resources back from the cloud into its stack",
		Long: `refresh reads every resource of each manifest's stack from the cloud and records what it finds
(an autoscaled node count, a patch DigitalOcean upgraded to, a console edit). It changes nothing in
the cloud; the next up undoes what the manifest manages and leaves what the cloud owns.

A resource an interrupted up was creating (status says so) is recorded with its id in the cloud
with --import-pending-create, or forgotten with --clear-pending-creates when the cloud has none.`,
	}
	o.flags(cmd)
	imports := cmd.Flags().StringArray("import-pending-create", nil,
		"[URN=]ID: the cloud's id of a resource an interrupted up was creating (URN= when several are pending)")
	clearPending := cmd.Flags().Bool("clear-pending-creates", false, "forget the resources an interrupted up was creating: the cloud has none")
	cmd.RunE = func(_ *cobra.Command, files []string) error {
		o.files = files
		if len(*imports) > 0 || *clearPending {
			if targets, err := a.targets(o); err != nil {
				return err
			} else if len(targets) > 1 {
				return errors.New("--import-pending-create and --clear-pending-creates name one file's stack")
			}
		}
		opts := deploy.RefreshOptions{ImportPendingCreates: *imports, ClearPendingCreates: *clearPending}
		return a.runDeploy(o, runOp{name: "refresh", op: func(ctx context.Context, d *deploy.Deployer, t deploy.Target) deploy.Outcome {
			return d.Refresh(ctx, t, opts)
		}})
	}
	return cmd
}

func (a *app) driftCommand() *cobra.Command {
	o := &deployOptions{}
	cmd := &cobra.Command{
		Use:   "drift FILE|DIR...",
		Short: "Tell whether the cloud has drifted from each manifest, changing nothing",
		Long: `drift reads each manifest's resources from the cloud, in memory only, and previews the manifest
against them. Drift the cloud owns by design (an autoscaler's node count, auto-upgrade patches) is
ignored by the modules and reads as none; anything else the next up would put back is drift,
named by manifest field with both values.

It changes nothing, and exits 0 without drift, 3 with drift (the outcome drifted), 1 when it
cannot tell.`,
	}
	o.flags(cmd, "markdown")
	cmd.RunE = func(_ *cobra.Command, files []string) error {
		o.files = files
		return a.runDeploy(o, runOp{name: "drift", render: renderDrift,
			op: func(ctx context.Context, d *deploy.Deployer, t deploy.Target) deploy.Outcome { return d.Drift(ctx, t) }})
	}
	return cmd
}

func (a *app) statusCommand() *cobra.Command {
	o := &deployOptions{}
	cmd := &cobra.Command{
		Use:   "status FILE|DIR...",
		Short: "Show each manifest's stack: its last update, whether it is ready and in sync, its outputs",
		Long: `status shows each manifest's stack: the conditions Ready (the last up succeeded and deployed this
manifest, and the stacks it references are there) and Drifted, the manifest's generation against
the one the last up deployed, the last update, and the non-secret outputs. It reads the backend
only, so Drifted is Unknown (NotChecked) unless --drift compares the cloud too, as drift does.

It exits 0, 4 when a stack's last update failed or was interrupted, or the stack is not at its
manifest's generation (never deployed, or the manifest changed since the last up), 1 when it
cannot tell.`,
	}
	o.flags(cmd)
	drift := cmd.Flags().Bool("drift", false, "also read the cloud for the Drifted condition (a preview of each stack)")
	cmd.RunE = func(_ *cobra.Command, files []string) error {
		o.files = files
		return a.runDeploy(o, runOp{name: "status", render: renderStatus,
			op: func(ctx context.Context, d *deploy.Deployer, t deploy.Target) deploy.Outcome {
				return d.Status(ctx, t, deploy.StatusOptions{Drift: *drift,
					Exists: func(key string) (bool, error) { return deploy.Deployed(ctx, d.Backend, key) }})
			}})
	}
	return cmd
}

func (a *app) destroyCommand() *cobra.Command {
	o := &deployOptions{}
	cmd := &cobra.Command{
		Use:   "destroy FILE|DIR...",
		Short: "Destroy the stacks of manifests on the real Pulumi engine",
		Long: `destroy deletes every resource of each manifest's stack, the stacks that reference another first.
A protected cluster (deletionProtection, on by default) is refused before the engine runs: deploy
deletionProtection: false first. So is a stack that the deployed stacks of other manifests in the
same folders reference (a cluster under its pools): destroy them first, or name them too. A stack never deployed has nothing to destroy.
On a terminal, without --yes, it lists what each stack would delete and asks; only y or yes goes
on, and an answer no exits 3 having deleted nothing. Without a terminal it needs --yes.
--remove also deletes the emptied stack from the backend.`,
	}
	o.flags(cmd)
	yes := cmd.Flags().Bool("yes", false, "destroy without asking")
	remove := cmd.Flags().Bool("remove", false, "remove each stack from the backend once its resources are destroyed")
	cmd.RunE = func(_ *cobra.Command, files []string) error {
		o.files = files
		if !*yes && !a.interactive() {
			return errors.New("destroy deletes clusters and their workloads: add --yes")
		}
		opts := deploy.DestroyOptions{Remove: *remove}
		if !*yes {
			opts.Confirm = func(t deploy.Target, resources []string) bool {
				return a.confirm(destroyPlan(t, resources), fmt.Sprintf("%s: delete %d resource(s). Destroy?", t.File, len(resources)))
			}
		}
		return a.runDeploy(o, runOp{name: "destroy", reverse: true, guard: a.stillReferenced, op: func(ctx context.Context, d *deploy.Deployer, t deploy.Target) deploy.Outcome {
			return d.Destroy(ctx, t, opts)
		}})
	}
	return cmd
}

func (a *app) kubeconfigCommand() *cobra.Command {
	o := &deployOptions{}
	cmd := &cobra.Command{
		Use:   "kubeconfig FILE",
		Short: "Print a deployed cluster's kubeconfig, e.g. KUBECONFIG=<(clusterplane kubeconfig prod.yaml) kubectl get nodes",
	}
	o.oneStackFlags(cmd)
	cmd.Args = cobra.ExactArgs(1)
	cmd.RunE = func(_ *cobra.Command, files []string) error {
		o.files = files
		return a.runDeploy(o, runOp{name: "kubeconfig", render: renderKubeconfig, verbatim: true,
			op: func(ctx context.Context, d *deploy.Deployer, t deploy.Target) deploy.Outcome {
				return d.Kubeconfig(ctx, t)
			}})
	}
	return cmd
}

func (a *app) adoptCommand() *cobra.Command {
	o := &deployOptions{}
	cmd := &cobra.Command{
		Use:   "adopt FILE|DIR... [--id CLOUD_ID] [--exact]",
		Short: "Bring existing clusters and node pools under management, changing nothing",
		Long: `adopt imports the cloud's cluster or node pool into each manifest's stack, with Pulumi's import:
the manifest's module is deployed with the existing resource instead of a new one. Several files or
a directory are adopted in the order of their references, clusters before the pools that take
their id with valueFrom; a pool whose cluster is not adopted is skipped.

The cloud id is the manifest's metadata.annotations["` + deploy.CloudIDAnnotation + `"] (clusterplane
discover writes it), or --id for one manifest. A manifest without either is refused by name before
anything is adopted, as is an --id that differs from the manifest's annotation, and a manifest
whose stack already holds its cluster or pool (clusterplane deployed or adopted it).

Adopting changes nothing in the cloud but one tag: a DigitalOcean cluster of several pools, none
tagged terraform:default-node-pool (doctl and the console tag none), gets that tag on the pool
named in spec.defaultNodePool.nodePoolName first, since the provider imports no such cluster
otherwise; adopt says so. Where the manifest differs from the live resource in a way
the provider changes in place (the tags clusterplane adds, labels, a node count; pkg/change/effects and
'clusterplane explain' say which), the import keeps what the cloud has and adopt lists each
difference as what the next up changes in place. A difference that would replace the resource, or
that the provider refuses, blocks: nothing is adopted, each field is listed with the manifest's
value and the cloud's, and adopt exits 3; correct the manifest and run it again. --exact blocks
on every difference, in-place ones too. Secrets are never shown. It exits 0 when adopted, 1 for
invalid input or a failure.

CLOUD_ID is the cluster's id, a DigitalOcean pool's id, or for a Civo pool CLUSTER_ID:POOL_NAME
(a Civo pool's name is its id within its cluster).`,
	}
	o.flags(cmd, "markdown")
	o.secretsFlag(cmd)
	id := cmd.Flags().String("id", "", "the cloud's id of the cluster or node pool of the one manifest given; "+
		"default the manifest's "+deploy.CloudIDAnnotation+" annotation")
	exact := cmd.Flags().Bool("exact", false, "block on every difference from the cloud, in-place ones too")
	cmd.RunE = func(_ *cobra.Command, files []string) error {
		o.files = files
		var ids map[string]string
		return a.runDeploy(o, runOp{name: "adopt", render: renderAdopt, skipBlocked: true,
			guard: func(ctx context.Context, b deploy.Backend, _ *deployOptions, targets []deploy.Target) (map[string]error, error) {
				var err error
				if ids, err = deploy.AdoptIDs(targets, *id); err != nil {
					return nil, err
				}
				return nil, deploy.AlreadyManaged(ctx, b, targets)
			},
			op: func(ctx context.Context, d *deploy.Deployer, t deploy.Target) deploy.Outcome {
				return d.Adopt(ctx, t, ids[t.Key()], deploy.AdoptOptions{Exact: *exact})
			}})
	}
	return cmd
}

// stillReferenced refuses to destroy a target that a manifest next to the files given references
// (deploy.Files.DestroyGuard).
func (a *app) stillReferenced(ctx context.Context, b deploy.Backend, o *deployOptions, targets []deploy.Target) (map[string]error, error) {
	return a.files(o).DestroyGuard(ctx, b, o.files, targets)
}
