package upgradecmd

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/deploy/render"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/deploy/upgradeplan"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/pkg/errors"
	"github.com/spf13/cobra"
)

type planOptions struct {
	env   Env
	files []string
	// output is -o; write is --write: set each manifest's next step.
	output *cli.Format
	write  bool
}

// newPlan is upgrade plan; runF, when set, runs in place of planRun (a test of the flags).
func newPlan(env Env, runF func(*planOptions) error) *cobra.Command {
	opts := &planOptions{env: env}
	cmd := &cobra.Command{
		Use:   "plan FILE|DIR...",
		Short: "Plan each cluster's Kubernetes upgrade: its steps, the removed APIs it uses, the fleet's order",
		Long: `upgrade plan asks each cluster's cloud for the way from the version it runs to its manifest's:
one minor release at a time, each step to the latest patch the cloud offers of its minor
(the cluster's available upgrades, or the cloud's versions list, as its driver reads them;
where upgrades start only from the running minor's latest patch, a cluster behind takes it). It
reads the cluster's kubeconfig from the cloud, in memory only, and names the objects whose
manifests use a Kubernetes API that a release on the way removes (the apiVersion in the
kubectl.kubernetes.io/last-applied-configuration annotation and in metadata.managedFields,
checked against a table kept from the Kubernetes deprecated API migration guide), runs the
cloud's own cluster linter where it has one, and orders the fleet by metadata.env: development,
test and staging before production.

--write sets each manifest's kubernetesVersion to the next step of its path, and keeps where the
path ends in the annotation ` + upgrade.GoalAnnotation + ` until it is reached, so that the plan
after ` + "`up`" + ` shows the next step. Only those lines change; comments and layout stay. A blocked
cluster's manifest is not written, unless only later steps are blocked: a first step that removes
no API (a patch release) is written while a later release's removed APIs are in use or could not
be checked. Each file written (with what blocks the steps after it), and each not written with the
reason (a blocked upgrade's first blocker, a cluster at its goal), is said on stderr.

A cluster is the one its stack deployed (the stack's cluster_id output, read through the Pulumi
CLI as the deploy commands read it), else the one of the manifest's clusterName in its region.
The API tokens are the deploy commands' (providerConfig.apiToken or ` + cli.TokenVars() + `).
Node pools follow their cluster's version and are not planned.

` + exitcode.Help(exitcode.OK, exitcode.Invalid, exitcode.Usage, exitcode.Blocked, exitcode.Interrupted) + `
upgrade plan exits 3 when something blocks an upgrade: a removed API in use, a clusterlint
error, a version the cloud does not offer or cannot reach from the running one.`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: cli.ManifestFiles,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.files = args
			if runF != nil {
				return runF(opts)
			}
			return planRun(opts)
		},
	}
	opts.output = cli.OutputFlag(cmd, "text", "json", "markdown")
	cmd.Flags().BoolVar(&opts.write, "write", false, "set each manifest's kubernetesVersion to the next step of its path")
	return cmd
}

func planRun(opts *planOptions) error {
	env, files, output, write := opts.env, opts.files, opts.output.String(), opts.write
	targets, err := env.Targets(files)
	if err != nil {
		return err
	}
	clusterTargets, clusters, err := upgradeplan.UpgradeClusters(targets, files)
	if err != nil {
		return env.Exit(err)
	}
	ctx, stop := cli.Interruptible()
	defer stop()
	upgradeplan.StackClusterIDs(ctx, func() (stackstate.Backend, error) { return env.Backend("") }, clusterTargets, clusters)
	plans := upgrade.Assess(ctx, clusters)
	if ctx.Err() != nil {
		return cli.Exit(exitcode.Interrupted)
	}
	var written, notWritten []string
	if write {
		if written, notWritten, err = upgrade.WriteNext(clusters, plans); err != nil {
			env.say(err.Error())
			return cli.Exit(exitcode.Invalid)
		}
	}
	if err := env.writePlan(output, plans, written, notWritten); err != nil {
		return err
	}
	// A cluster whose cloud could not be asked (no token) is a mistake to fix, not a blocked
	// upgrade: the deploy commands exit 1 for it too.
	for _, c := range clusters {
		if _, ok := c.Cloud.(upgrade.NoCloud); ok {
			return cli.Exit(exitcode.Invalid)
		}
	}
	for _, p := range plans {
		if p.Blocked() {
			return cli.Exit(exitcode.Blocked)
		}
	}
	return nil
}

// writePlan prints the plans as -o asks, and on stderr the files --write wrote or left.
func (e Env) writePlan(output string, plans []upgrade.Assessment, written, notWritten []string) error {
	var out bytes.Buffer
	switch output {
	case "json":
		enc := json.NewEncoder(&out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"plans": plans, "written": nonNil(written),
			"notWritten": nonNil(notWritten), "removedApisSource": upgrade.RemovedSource}); err != nil {
			return errors.Wrap(err, "write the plan")
		}
	case "markdown":
		render.UpgradeMarkdown(&out, plans)
	default:
		render.UpgradeText(&out, plans)
	}
	for _, w := range written {
		fmt.Fprintf(e.Stderr, "wrote %s\n", w)
	}
	for _, w := range notWritten {
		fmt.Fprintln(e.Stderr, w)
	}
	return e.print(&out)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
