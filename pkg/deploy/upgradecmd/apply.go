package upgradecmd

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/deploy/render"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/deploy/upgraderun"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/kubeversion"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

type applyOptions struct {
	env   Env
	files []string
	// to is --to, the goal of every cluster; dryRun is --dry-run; reportFile is --report-file;
	// secretsProvider is --secrets-provider, as up's.
	to, reportFile, secretsProvider string
	opts                            upgraderun.Options
	dryRun                          bool
}

func newApply(env Env) *cobra.Command {
	o := &applyOptions{env: env}
	cmd := &cobra.Command{
		Use:   "apply FILE|DIR...",
		Short: "Carry out each cluster's upgrade plan, step by step, in waves across the fleet",
		Long: `upgrade apply takes each cluster to its goal (--to, else the ` + upgrade.GoalAnnotation + `
annotation, else its kubernetesVersion), one step of its path at a time: the step written into its
manifest (as upgrade plan --write writes it), an up of that file with up's guards, then a wait
until the cloud reports the cluster running at that version with every node ready. The fleet goes
in waves by metadata.env (development, test, staging, other, production); --canary, --parallel and
--soak shape them. It stops at the first step that fails or does not end healthy within
--step-timeout, and at the first blocked cluster (removed APIs unchecked from here block unless
--allow-unchecked-apis). The same command again goes on from what each cluster runs: no step is
sent twice, none skipped. Ctrl-C lets the steps under way end; a second stops at once.
--dry-run prints the steps a run takes. docs/deploying.md, "Upgrading Kubernetes", has it all.

` + exitcode.Help(exitcode.OK, exitcode.Invalid, exitcode.Usage, exitcode.Blocked, exitcode.Interrupted) + `
upgrade apply exits 3 when a blocked cluster stopped it, 1 when a step failed.`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: cli.ManifestFiles,
		RunE: func(_ *cobra.Command, args []string) error {
			o.files = args
			return applyRun(o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.to, "to", "", "the version every cluster goes to, in place of each manifest's goal")
	fl.IntVar(&o.opts.Canary, "canary", 0, "upgrade the first N clusters of the first wave before the rest of it")
	fl.IntVar(&o.opts.Parallel, "parallel", 1, "clusters of a wave upgraded at once")
	fl.DurationVar(&o.opts.Soak, "soak", 0, "how long a finished wave must stay healthy before the next starts")
	fl.DurationVar(&o.opts.StepTimeout, "step-timeout", time.Hour, "how long a step may take to end healthy")
	fl.DurationVar(&o.opts.Poll, "poll", 10*time.Second, "how often the cloud is asked while a step runs, until earlier steps show when one ends")
	fl.BoolVar(&o.opts.AllowUnchecked, "allow-unchecked-apis", false, "let through a step whose removed APIs cannot be checked from here")
	fl.BoolVar(&o.opts.InWindow, "in-maintenance-window", false, "start each step only while its cluster's maintenance window is open")
	fl.BoolVar(&o.dryRun, "dry-run", false, "print the waves and steps a run would take, changing nothing")
	fl.StringVar(&o.reportFile, "report-file", "", "write what the rollout did to FILE: .json, .csv or .md")
	fl.StringVar(&o.secretsProvider, "secrets-provider", "", "the secrets provider of a new stack (as up's)")
	return cmd
}

func applyRun(o *applyOptions) error {
	env := o.env
	if err := o.opts.Validate(); err != nil {
		return err
	}
	switch {
	case o.to != "" && len(kubeversion.Numbers(o.to)) < 2:
		return fmt.Errorf("--to %s: not a Kubernetes version (e.g. 1.33.1-do.0, 1.31.1-k3s1)", o.to)
	case o.dryRun && o.reportFile != "":
		return errors.New("--report-file says what a run did: --dry-run writes none (its steps are on standard output)")
	}
	if err := render.UpgradeRunFormat(o.reportFile); o.reportFile != "" && err != nil {
		return err
	}
	env.Redact("") // the redactor is made before any stack runs
	targets, err := env.Targets(o.files)
	if err != nil {
		return err
	}
	fleet := upgraderun.Fleet{Files: env.Files, Say: env.say, StackTimeout: stackTimeout,
		Backend: func() (stackstate.Backend, error) { return env.Backend(o.secretsProvider) }}
	if file, ok := env.Stderr.(*os.File); ok && term.IsTerminal(int(file.Fd())) {
		// On a terminal, a live line for each cluster in flight; elsewhere (CI), plain lines.
		live := render.NewLive(env.Stderr)
		fleet.Say = func(line string) { live.Say(env.Redact(line)) }
		fleet.Progress = func(cluster, line string) { live.Set(cluster, env.Redact(line)) }
	}
	ctx, stopping, stop := cli.InterruptibleTwice(env.Stderr)
	defer stop()
	clusters, err := fleet.Clusters(ctx, targets, o.files, o.to)
	if err != nil {
		return env.Exit(err)
	}
	var out bytes.Buffer
	if o.dryRun {
		waves := upgraderun.Plan(ctx, clusters, o.opts)
		render.UpgradeRunPlan(&out, waves)
		return firstErr(env.print(&out), cli.Exit(upgraderun.PlanExitCode(waves)))
	}
	report := upgraderun.Run(ctx, stopping, clusters, o.opts, fleet.Stacks())
	render.UpgradeRunSummary(&out, report)
	if err := env.print(&out); err != nil {
		return err
	}
	if o.reportFile != "" {
		data, err := render.UpgradeRunFile(o.reportFile, report)
		if err = firstErr(err, runreport.WriteReportFile(o.reportFile, []byte(env.Redact(string(data))))); err != nil {
			env.say(err.Error())
			return cli.Exit(exitcode.Invalid)
		}
	}
	if report.Stop == upgraderun.Interrupted {
		env.say("interrupted: to go on, run " + strings.Join(append([]string{"clusterplane"}, os.Args[1:]...), " "))
	}
	return cli.Exit(report.ExitCode())
}

// stackTimeout bounds one stack's up or refresh, as the deploy commands bound it.
const stackTimeout = 2 * time.Hour

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
