package main

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/clusterplane/clusterplane/pkg/change/replace"
	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/destroyguard"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/pipeline"
	"github.com/clusterplane/clusterplane/pkg/deploy/queue"
	"github.com/clusterplane/clusterplane/pkg/deploy/render"
	"github.com/clusterplane/clusterplane/pkg/deploy/savedplan"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/kubeconfigfile"
	"github.com/pkg/errors"
	"github.com/spf13/cobra"
)

// The deploy commands, each built by its constructor from the factory: newCmdX(f, runF) binds the
// flags to an options struct and, when the command runs, hands it to runF, or to the real xRun
// when runF is nil. Tests pass runF to check what the flags make of a command line.

func deployCommands(f *factory) []*cobra.Command {
	return []*cobra.Command{newCmdPreview(f, nil), newCmdUp(f, nil), newCmdRefresh(f, nil), newCmdDrift(f, nil),
		newCmdStatus(f, nil), newCmdDestroy(f, nil), newCmdKubeconfig(f, nil), newCmdAdopt(f, nil)}
}

// onFiles is a command's RunE that takes the files given into files, then runs runF, or run when
// runF is nil.
func onFiles[T any](opts *T, files *[]string, runF, run func(*T) error) func(*cobra.Command, []string) error {
	return func(_ *cobra.Command, args []string) error {
		*files = args
		return runOrReal(opts, runF, run)
	}
}

// runOrReal is runF, or run when runF is nil.
func runOrReal[T any](opts *T, runF, run func(*T) error) error {
	if runF != nil {
		return runF(opts)
	}
	return run(opts)
}

type previewOptions struct {
	f *factory
	deployOptions
	// savePlan is --save-plan's file.
	savePlan string
}

func newCmdPreview(f *factory, runF func(*previewOptions) error) *cobra.Command {
	opts := &previewOptions{f: f}
	cmd := &cobra.Command{
		Use:   "preview FILE|DIR...",
		Short: "Show what deploying manifests would change, on the real Pulumi engine",
		Long: `preview runs each manifest's module in this process through Pulumi's Automation API (the
Pulumi CLI must be on PATH) against its stack, <kind program>/<name>-<env>, and prints the
engine's plan. The state lives at PULUMI_BACKEND_URL, or in a local file backend under your config
folder; PULUMI_CONFIG_PASSPHRASE encrypts its secrets (or --secrets-provider).

As up does, it reads each stack's resources from the cloud first (in memory, as drift does), so
that it shows what up would put back, by field, and the cost's real change; --refresh=false
previews against the stacks' state alone. A stack the fleet scan finds as its last up left it
(manifest, clusterplane build and cloud) is not previewed at all (--deep: every stack).

With --save-plan FILE it writes one file for every stack: the manifest's digest, the stack's last update and the engine's planned
steps with the fields they change (names only, never a value or a secret), for up --plan FILE.

It exits 3 when something would be replaced, when the engine refuses a change (a protected
cluster), when the manifest changes what the providers cannot carry out since the last up (as
diff calls it refused), or when the cloud differs where no up can put it back; 0 otherwise, 1 for invalid input or a failed preview, or when --policy
(or $CLUSTERPLANE_POLICY) denies a manifest: then no stack is previewed (docs/policy.md).`,
	}
	opts.flags(cmd, "markdown")
	opts.allFlag(cmd)
	opts.secretsFlag(cmd)
	opts.retargetFlag(cmd)
	opts.refreshFlag(cmd)
	opts.fleetFlags(cmd, true)
	cmd.Flags().StringVar(&opts.savePlan, "save-plan", "", "write the plan of every stack to this file, for up to apply exactly "+
		"(the preview then reads the cloud first, as drift does)")
	opts.policyFlag(cmd)
	cmd.RunE = onFiles(opts, &opts.files, runF, previewRun)
	return cmd
}

func previewRun(opts *previewOptions) error {
	f, o := opts.f, &opts.deployOptions
	if opts.savePlan != "" {
		if err := savedplan.PlanDestination(opts.savePlan); err != nil {
			return err
		}
		if o.changedSince != "" {
			return errors.New("--save-plan saves every stack's plan: it does not go with --changed-since")
		}
		o.deep = true // a plan holds every stack's steps: none is left out as unchanged
		return f.runDeploy(o, runOp{step: pipeline.PreviewPlan(), finish: savedplan.SaveTo(opts.savePlan)})
	}
	return f.runDeploy(o, runOp{step: pipeline.Preview(deploy.PreviewOptions{NoRefresh: !o.refresh}), pace: queue.Reading(o.refresh)})
}

type upOptions struct {
	f *factory
	deployOptions
	// yes deploys without asking; plan is --plan's file; allowReplace are --allow-replace's values.
	yes          bool
	plan         string
	allowReplace *replace.Allowed
}

func newCmdUp(f *factory, runF func(*upOptions) error) *cobra.Command {
	opts := &upOptions{f: f}
	cmd := &cobra.Command{
		Use:   "up FILE|DIR...",
		Short: "Deploy manifests on the real Pulumi engine",
		Long: `up deploys each manifest to its stack (see preview), each after the stacks it references, with
up to --parallel at once. A change the providers cannot carry out since the last up (as diff calls
it refused) is refused before the engine runs. On a terminal, without --yes, each stack that would
change shows its plan (as preview does, each changed field old → new) and asks; only y or yes
deploys it. Without a terminal nothing deploys without --yes. It ends with a row for each stack
that changed, differs, was blocked or failed, and a summary (--all: every stack).

Each stack's resources are read from the cloud first (one read of each, paced under the cloud's
limit a minute and what the account has left of its hour, where the cloud says it), and what changed there since the last up is put back: the table names each field put back
and the cost line says the real change, from what the cloud had. A difference no up can put back
(a label added in the cloud to a pool whose manifest has none, on some clouds) ends as drifted, with
the field, why and what works. --refresh=false skips the read for a manifest unchanged since its
last up, trusting the stack's state (docs/deploying.md). A stack the fleet scan (one list of
each cloud account) finds as its last up left it is not run at all (--deep: every stack).

It exits 0, 3 when a change was refused (a replacement the run did not name with --allow-replace
or --allow-replace=KIND/NAME among them: neither --yes nor a yes stands for one) or not confirmed
(answered no) or the cloud still differs where no up can put it back, 1 when a deployment failed or
was skipped, or when --policy (or $CLUSTERPLANE_POLICY) denies a manifest: then no stack is deployed.

A node pool's rotation its rollout block allows (each cloud's pools, and a default pool where the
cloud can move it) is carried out before the engine runs (docs/deploying.md, "Rotating node
pools"); one that stops (a drain timeout) exits 1 with both pools in place, and up again resumes it.

up --plan FILE applies a plan preview --save-plan wrote, and nothing else, without asking: every
stack is checked first, and when a manifest differs from the one reviewed, another update landed on
a stack since, or a fresh preview (the cloud read first) would do anything the plan does not say,
nothing is applied, each stack saying what moved (exit 3); a replacement needs --allow-replace.`,
	}
	opts.flags(cmd)
	opts.allFlag(cmd)
	opts.secretsFlag(cmd)
	opts.retargetFlag(cmd)
	opts.policyFlag(cmd)
	cmd.Flags().BoolVar(&opts.yes, "yes", false, "deploy without asking (for CI); a replacement still needs --allow-replace")
	opts.allowReplace = cli.AllowReplaceFlag(cmd, f.kinds)
	opts.refreshFlag(cmd)
	opts.fleetFlags(cmd, true)
	cmd.Flags().StringVar(&opts.plan, "plan", "", "apply the plan a preview saved, and nothing else: every stack is refused "+
		"when a manifest, a stack or the cloud moved since (the files default to the plan's)")
	cmd.Args = cobra.ArbitraryArgs // up --plan FILE takes the plan's files
	cmd.RunE = onFiles(opts, &opts.files, runF, upRun)
	return cmd
}

func upRun(opts *upOptions) error {
	f, o := opts.f, &opts.deployOptions
	if opts.plan != "" {
		var p *savedplan.Plan
		var err error
		if o.files, p, err = planFiles(f, o.files, opts.plan); err != nil {
			return err
		}
		o.deep = true // the plan's guard previews every stack afresh
		return f.runDeploy(o, runOp{step: pipeline.UpPlan(p.Stack, deploy.UpOptions{Yes: true, AllowReplace: *opts.allowReplace}),
			skipBlocked: true, whole: true, pace: queue.Refreshing, guard: pipeline.PlanGuard(p, *opts.allowReplace, o.parallel, o.timeout)})
	}
	if len(o.files) == 0 {
		return errors.New("up takes the manifests to deploy (FILE|DIR...), or --plan FILE")
	}
	return f.runDeploy(o, runOp{step: pipeline.Up(deploy.UpOptions{Yes: opts.yes, AllowReplace: *opts.allowReplace, NoRefresh: !o.refresh, Interactive: f.interactive(), Confirm: func(t deploytarget.Target, r stackstate.Result) bool {
		return f.interactive() && f.confirm(render.UpPlan(t, r, f.prices), fmt.Sprintf("%s: %s. Deploy?", t.File, r.Summary()))
	}}), skipBlocked: true, pace: queue.Reading(o.refresh)})
}

type refreshOptions struct {
	f *factory
	deployOptions
	// imports are --import-pending-create's; clearPending is --clear-pending-creates.
	imports      []string
	clearPending bool
}

func newCmdRefresh(f *factory, runF func(*refreshOptions) error) *cobra.Command {
	opts := &refreshOptions{f: f}
	cmd := &cobra.Command{
		Use:   "refresh FILE|DIR...",
		Short: "Read each manifest's resources back from the cloud into its stack",
		Long: `refresh reads every resource of each manifest's stack from the cloud and records what it finds
(an autoscaled node count, a patch the cloud upgraded to, a console edit). It changes nothing in
the cloud; the next up undoes what the manifest manages and leaves what the cloud owns.

A resource an interrupted up was creating (status says so) is recorded with its id in the cloud
with --import-pending-create, or forgotten with --clear-pending-creates when the cloud has none.`,
	}
	opts.flags(cmd)
	opts.allFlag(cmd)
	cmd.Flags().StringArrayVar(&opts.imports, "import-pending-create", nil,
		"[URN=]ID: the cloud's id of a resource an interrupted up was creating (URN= when several are pending)")
	cmd.Flags().BoolVar(&opts.clearPending, "clear-pending-creates", false, "forget the resources an interrupted up was creating: the cloud has none")
	cmd.RunE = onFiles(opts, &opts.files, runF, refreshRun)
	return cmd
}

func refreshRun(opts *refreshOptions) error {
	f, o := opts.f, &opts.deployOptions
	if len(opts.imports) > 0 || opts.clearPending {
		if targets, err := f.targets(o); err != nil {
			return err
		} else if len(targets) > 1 {
			return errors.New("--import-pending-create and --clear-pending-creates name one file's stack")
		}
	}
	refresh := deploy.RefreshOptions{ImportPendingCreates: opts.imports, ClearPendingCreates: opts.clearPending}
	return f.runDeploy(o, runOp{step: pipeline.Refresh(refresh), pace: queue.RefreshingByID})
}

type driftOptions struct {
	f *factory
	deployOptions
	failOnPending bool // --fail-on-pending
}

func newCmdDrift(f *factory, runF func(*driftOptions) error) *cobra.Command {
	opts := &driftOptions{f: f}
	cmd := &cobra.Command{
		Use:   "drift FILE|DIR...",
		Short: "Tell whether the cloud has drifted from what the last up applied, changing nothing",
		Long: `drift reads each manifest's resources from the cloud, in memory only, and compares them with what
the stack's last up applied, as terraform plan -refresh-only does. Drift is what the cloud changed:
named by manifest field with both values, a difference no up can put back said as one, with why and
what works. Drift the cloud owns by design (an autoscaler's node count, auto-upgrade patches) is
ignored by the modules and reads as none. What the manifest changed since the last up (or an adopt
took over as the cloud had it) is pending, listed apart: the next up applies it.

It first lists each cloud account's clusters once and compares them with each stack's records
(docs/deploying.md, "The fleet scan"): only the stacks that list cannot vouch for are previewed
(--deep: all). It changes nothing, and exits 0 without drift (pending or not; a stack never
deployed says not deployed), 3 with drift (or pending, with --fail-on-pending), 1 when it cannot tell.`,
	}
	cmd.Flags().BoolVar(&opts.failOnPending, "fail-on-pending", false, "exit 3 when the manifest has changes the last up did not apply")
	opts.flags(cmd, "markdown")
	opts.allFlag(cmd)
	opts.fleetFlags(cmd, false)
	cmd.RunE = onFiles(opts, &opts.files, runF, driftRun)
	return cmd
}

func driftRun(opts *driftOptions) error {
	return opts.f.runDeploy(&opts.deployOptions, runOp{step: pipeline.Drift(opts.failOnPending), pace: queue.Refreshing})
}

type statusOptions struct {
	f *factory
	deployOptions
	// drift is --drift: read the cloud too; view the table's flags.
	drift bool
	view  render.StatusView
}

func newCmdStatus(f *factory, runF func(*statusOptions) error) *cobra.Command {
	opts := &statusOptions{f: f}
	cmd := &cobra.Command{
		Use:   "status FILE|DIR...",
		Short: "Show each manifest's stack: its last update, whether it is ready and in sync, its outputs",
		Long: `status shows each manifest's stack: the conditions Ready (the last up succeeded and deployed this
manifest, and the stacks it references are there) and Drifted, the manifest's generation against
the one the last up deployed, the last update, and the non-secret outputs. It reads the backend
only, so Drifted is Unknown (NotChecked) unless --drift compares the cloud too, as drift does: the
fleet scan first, then a preview of only the stacks it cannot vouch for (--deep: all). A local
file backend's state and history are read from its files directly, starting no Pulumi CLI; other
backends are read through the CLI, one stack at a time, and status says so once.

One stack is shown in full; a fleet as a table, one row a stack (--wide: more columns), sorted by
--sort-by, filtered by --only, -l and --kind (docs/deploying.md).

It exits 0, 4 when a stack's last update failed or was interrupted, is not at its manifest's
generation (never deployed, or changed since the last up) or (--drift) its cloud differs, 1 when
it cannot tell (a --drift preview that failed).`,
	}
	opts.flags(cmd, "yaml")
	cmd.Flags().BoolVar(&opts.drift, "drift", false, "also read the cloud for the Drifted condition, as drift does")
	opts.view.Flags(cmd.Flags())
	opts.fleetFlags(cmd, false)
	cmd.RunE = onFiles(opts, &opts.files, runF, statusRun)
	return cmd
}

func statusRun(opts *statusOptions) error {
	if err := opts.view.Validate(); err != nil {
		return err
	}
	pace := queue.Reading(opts.drift) // status --drift refreshes as drift does
	text := func(w io.Writer, outcomes []outcome.Outcome) { opts.view.Text(w, outcomes, opts.f.prices) }
	return opts.f.runDeploy(&opts.deployOptions, runOp{step: pipeline.Status(opts.drift), render: text, filter: opts.view.Filter, pace: pace, scan: opts.drift})
}

type destroyOptions struct {
	f *factory
	deployOptions
	// yes destroys without asking; remove deletes the emptied stacks too.
	yes, remove bool
}

func newCmdDestroy(f *factory, runF func(*destroyOptions) error) *cobra.Command {
	opts := &destroyOptions{f: f}
	cmd := &cobra.Command{
		Use:   "destroy FILE|DIR...",
		Short: "Destroy the stacks of manifests on the real Pulumi engine",
		Long: `destroy deletes every resource of each manifest's stack, the stacks that reference another first.
A protected cluster (deletionProtection, on by default) is refused before the engine runs: deploy
deletionProtection: false first. So is a stack that the deployed stacks of other manifests in the
same folders reference (a cluster under its pools): destroy them first, or name them too. So is a
stack whose pool rotation is under way. Every refusal is known before anything is deleted: one
refused stack refuses the whole destroy (exit 3), naming each refusal, and nothing is deleted.
A stack never deployed has nothing to destroy.
On a terminal, without --yes, it lists what each stack would delete and asks; only y or yes goes
on, and an answer no exits 3 having deleted nothing. Without a terminal it needs --yes.
--remove also deletes the emptied stack from the backend.`,
	}
	opts.flags(cmd)
	opts.allFlag(cmd)
	cmd.Flags().BoolVar(&opts.yes, "yes", false, "destroy without asking")
	cmd.Flags().BoolVar(&opts.remove, "remove", false, "remove each stack from the backend once its resources are destroyed")
	cmd.RunE = onFiles(opts, &opts.files, runF, destroyRun)
	return cmd
}

func destroyRun(opts *destroyOptions) error {
	f := opts.f
	if !opts.yes && !f.interactive() {
		fmt.Fprintln(f.Stderr, "destroy: not confirmed (no terminal to ask on: use --yes); it deletes clusters and their workloads, and nothing was deleted")
		return cli.Exit(exitcode.Blocked)
	}
	destroy := deploy.DestroyOptions{Remove: opts.remove}
	if !opts.yes {
		destroy.Confirm = func(t deploytarget.Target, resources []string) bool {
			return f.confirm(render.DestroyPlan(t, resources), fmt.Sprintf("%s: delete %d resource(s). Destroy?", t.File, len(resources)))
		}
	}
	// A stack that a manifest next to the files given references is not destroyed (a cluster under its pools).
	stillReferenced := func(ctx context.Context, b stackstate.Backend, targets []deploytarget.Target) (map[string]error, error) {
		return f.files(&opts.deployOptions).DestroyGuard(ctx, b, opts.files, targets)
	}
	return f.runDeploy(&opts.deployOptions, runOp{step: pipeline.Destroy(destroy), guard: destroyguard.New(stillReferenced), whole: true})
}

type kubeconfigOptions struct {
	f *factory
	deployOptions
	outputFile string   // --output-file
	command    []string // what runs after --, with KUBECONFIG naming the kubeconfig's file
}

func newCmdKubeconfig(f *factory, runF func(*kubeconfigOptions) error) *cobra.Command {
	opts := &kubeconfigOptions{f: f}
	cmd := &cobra.Command{
		Use:   "kubeconfig FILE [-- COMMAND ARGS... | --output-file PATH]",
		Short: "Run a command with a deployed cluster's kubeconfig: clusterplane kubeconfig prod.yaml -- kubectl get nodes",
		Long: `kubeconfig runs COMMAND with KUBECONFIG naming a file that holds FILE's stack's kubeconfig, 0600 in a
folder of its own (0700); both are removed once COMMAND ends or cannot start, or clusterplane is interrupted
(Ctrl-C reaches COMMAND from the terminal, a SIGTERM to clusterplane is passed on). It exits with COMMAND's
exit code, 1 when it cannot start it. --output-file PATH writes the kubeconfig to PATH (0600) instead.`,
	}
	opts.oneStackFlags(cmd)
	cmd.Flags().StringVar(&opts.outputFile, "output-file", "", "write the kubeconfig to this file, 0600, instead of printing it")
	cmd.RunE = func(c *cobra.Command, args []string) (err error) {
		if opts.files, opts.command, err = cli.SplitAtDash(c, args, 1, "output-file"); err == nil {
			err = runOrReal(opts, runF, kubeconfigRun)
		}
		return err
	}
	return cmd
}

// kubeconfigRun prints the kubeconfig, or hands it to --output-file's file or to the command alone.
func kubeconfigRun(opts *kubeconfigOptions) error {
	f, kc, keep := opts.f, &bytes.Buffer{}, opts.outputFile != "" || opts.command != nil
	r := runOp{step: pipeline.Kubeconfig(), render: render.Kubeconfig, verbatim: true}
	if keep {
		r.render = func(_ io.Writer, outcomes []outcome.Outcome) { render.Kubeconfig(kc, outcomes) }
	}
	if err := f.runDeploy(&opts.deployOptions, r); err != nil || !keep {
		return err
	}
	return cli.Exit(kubeconfigfile.Give(kc.Bytes(), opts.outputFile, opts.command, f.Stdin, f.Stdout, f.Stderr, f.printError))
}

type adoptOptions struct {
	f *factory
	deployOptions
	// id is --id, the cloud id of the one manifest; exact blocks on every difference.
	id    string
	exact bool
}

func newCmdAdopt(f *factory, runF func(*adoptOptions) error) *cobra.Command {
	opts := &adoptOptions{f: f}
	cmd := &cobra.Command{
		Use:   "adopt FILE|DIR... [--id CLOUD_ID] [--exact]",
		Short: "Bring existing clusters and node pools under management, changing nothing",
		Long: `adopt imports the cloud's cluster or node pool into each manifest's stack, with Pulumi's import:
the manifest's module is deployed with the existing resource instead of a new one. Several files or
a directory are adopted in the order of their references, clusters before the pools that take
their id with valueFrom; a pool whose cluster is not adopted is skipped.

The cloud id is the manifest's metadata.annotations["` + deploytarget.CloudIDAnnotation + `"] (clusterplane
discover writes it), or --id for one manifest. A manifest without either is refused by name before
anything is adopted, as is an --id that differs from the manifest's annotation, and a manifest
whose stack already holds its cluster or pool (clusterplane deployed or adopted it).

Adopting changes nothing in the cloud but, where a cloud's provider needs it, one tag: a cluster
of several pools none of which is tagged as its default (terraform:default-node-pool) gets that
tag on the pool named in spec.defaultNodePool.nodePoolName first, since the provider imports no
such cluster otherwise; adopt says so (docs/deploying.md says what each cloud's import does).
A fleet whose imports would send more than 80% of its cloud's requests a minute, or of what the
account has left of its requests an hour (where the cloud's answers say it), is paced under
that, whatever --parallel says; adopt prints the estimate. Where the manifest differs from the live resource in a way
the provider changes in place (the tags clusterplane adds, labels, a node count; pkg/change/effects and
'clusterplane explain' say which), the import keeps what the cloud has and adopt lists each
difference as what the next up changes in place. A difference that would replace the resource, or
that the provider refuses, blocks: nothing is adopted, each field is listed with the manifest's
value and the cloud's, and adopt exits 3; correct the manifest and run it again. --exact blocks
on every difference, in-place ones too. Secrets are never shown. It exits 0 when adopted, 1 for
invalid input or a failure.

CLOUD_ID is the cluster's id, or a pool's as discover writes it: its id, or CLUSTER_ID:POOL_NAME
where a cloud names a pool only within its cluster.`,
	}
	opts.flags(cmd, "markdown")
	opts.secretsFlag(cmd)
	cmd.Flags().StringVar(&opts.id, "id", "", "the cloud's id of the cluster or node pool of the one manifest given; "+
		"default the manifest's "+deploytarget.CloudIDAnnotation+" annotation")
	cmd.Flags().BoolVar(&opts.exact, "exact", false, "block on every difference from the cloud, in-place ones too")
	cmd.RunE = onFiles(opts, &opts.files, runF, adoptRun)
	return cmd
}

func adoptRun(opts *adoptOptions) error {
	var ids map[string]string
	return opts.f.runDeploy(&opts.deployOptions, runOp{step: pipeline.Adopt(func(key string) string { return ids[key] }, deploy.AdoptOptions{Exact: opts.exact}),
		render: render.Adopt, summary: true, skipBlocked: true, pace: queue.Adopting,
		guard: func(ctx context.Context, b stackstate.Backend, targets []deploytarget.Target) (map[string]error, error) {
			var err error
			if ids, err = deploy.AdoptIDs(targets, opts.id); err != nil {
				return nil, err
			}
			if err := deploy.AlreadyManaged(ctx, b, targets, ids); err != nil {
				return nil, err
			}
			return nil, nil
		}})
}
