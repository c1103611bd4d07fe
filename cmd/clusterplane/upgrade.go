package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/pkg/errors"
	"github.com/spf13/cobra"
)

// upgradeCommand is `clusterplane upgrade`, whose one command is plan.
func newCmdUpgrade(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "upgrade",
		Short: "Plan Kubernetes upgrades of deployed clusters",
		// `upgrade FILE` is a plan forgotten, not a request for help: exiting 0 after the help
		// would read as a plan that found nothing to do.
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return errors.Errorf("upgrade has no command %q: to plan the upgrades, run `clusterplane upgrade plan %s`",
					args[0], strings.Join(args, " "))
			}
			return cmd.Help()
		},
	}
	cmd.AddCommand(newCmdUpgradePlan(f, nil))
	return cmd
}

type upgradePlanOptions struct {
	f     *factory
	files []string
	// output is -o; write is --write: set each manifest's next step.
	output *cli.Format
	write  bool
}

func newCmdUpgradePlan(f *factory, runF func(*upgradePlanOptions) error) *cobra.Command {
	opts := &upgradePlanOptions{f: f}
	cmd := &cobra.Command{
		Use:   "plan FILE|DIR...",
		Short: "Plan each cluster's Kubernetes upgrade: its steps, the removed APIs it uses, the fleet's order",
		Long: `upgrade plan asks each cluster's cloud for the way from the version it runs to its manifest's:
one minor release at a time, each step to the latest patch the cloud offers of its minor
(DigitalOcean: the cluster's available upgrades and its options, from the latest patch of the
running minor only, which a cluster behind it takes first; Civo: its versions list). It
reads the cluster's kubeconfig from the cloud, in memory only, and names the objects whose
manifests use a Kubernetes API that a release on the way removes (the apiVersion in the
kubectl.kubernetes.io/last-applied-configuration annotation and in metadata.managedFields,
checked against a table kept from the Kubernetes deprecated API migration guide), runs
DigitalOcean's clusterlint, and orders the fleet by metadata.env: development, test and staging
before production.

--write sets each manifest's kubernetesVersion to the next step of its path, and keeps where the
path ends in the annotation ` + upgrade.GoalAnnotation + ` until it is reached, so that the plan
after ` + "`up`" + ` shows the next step. Only those lines change; comments and layout stay. A blocked
cluster's manifest is not written; each file written, and each not written with the reason (a
blocked upgrade's first blocker, a cluster at its goal), is said on stderr.

A cluster is the one its stack deployed (the stack's cluster_id output, read through the Pulumi
CLI as the deploy commands read it), else the one of the manifest's clusterName in its region.
The API tokens are the deploy commands' (providerConfig.apiToken or DIGITALOCEAN_TOKEN,
CIVO_TOKEN). Node pools follow their cluster's version and are not planned.

` + exitcode.Help(exitcode.OK, exitcode.Invalid, exitcode.Usage, exitcode.Blocked, exitcode.Interrupted) + `
upgrade plan exits 3 when something blocks an upgrade: a removed API in use, a clusterlint
error, a version the cloud does not offer or cannot reach from the running one.`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: cli.ManifestFiles,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.files = args
			return runOrReal(opts, runF, upgradePlanRun)
		},
	}
	opts.output = cli.OutputFlag(cmd, "text", "json", "markdown")
	cmd.Flags().BoolVar(&opts.write, "write", false, "set each manifest's kubernetesVersion to the next step of its path")
	return cmd
}

func upgradePlanRun(opts *upgradePlanOptions) error {
	f, files, output, write := opts.f, opts.files, opts.output.String(), opts.write
	targets, err := f.targets(&deployOptions{files: files})
	if err != nil {
		return err
	}
	var clusters []upgrade.Cluster
	var clusterTargets []deploy.Target
	byStack := map[string]string{}
	for _, t := range targets {
		if c, ok := upgrade.ClusterOf(t.File, t.Kind, t.Input); ok {
			// Two files of one stack (a manifest and its .stack-input.yaml twin) would plan the
			// cluster twice, each a row and a place in the fleet's order: refused, as preview does.
			if other, ok := byStack[t.Key()]; ok {
				fmt.Fprintf(f.Stderr, "%s and %s both deploy stack %s: give only one of them\n", other, t.File, t.Key())
				return cli.Exit(exitcode.Invalid)
			}
			byStack[t.Key()] = t.File
			clusters = append(clusters, c)
			clusterTargets = append(clusterTargets, t)
		}
	}
	if len(clusters) == 0 {
		fmt.Fprintf(f.Stderr, "no cluster manifest in %s: node pools follow their cluster's version\n", strings.Join(files, " "))
		return cli.Exit(exitcode.Invalid)
	}
	ctx, stop := interruptible()
	defer stop()
	f.clusterIDs(ctx, clusterTargets, clusters)
	plans := upgrade.Plan(ctx, clusters)
	if ctx.Err() != nil {
		return cli.Exit(exitcode.Interrupted)
	}
	var written, notWritten []string
	if write {
		if written, notWritten, err = upgrade.WriteNext(clusters, plans); err != nil {
			f.printError(err)
			return cli.Exit(exitcode.Invalid)
		}
	}
	if err := f.writeUpgradePlan(output, plans, written, notWritten); err != nil {
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

// writeUpgradePlan prints the plans as -o asks, and on stderr the files --write wrote or left.
func (f *factory) writeUpgradePlan(output string, plans []upgrade.ClusterPlan, written, notWritten []string) error {
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
		upgradeMarkdown(&out, plans)
	default:
		upgradeText(&out, plans)
	}
	for _, w := range written {
		fmt.Fprintf(f.Stderr, "wrote %s\n", w)
	}
	for _, w := range notWritten {
		fmt.Fprintln(f.Stderr, w)
	}
	return f.writeRedacted(&out)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// clusterIDs sets each cluster's ID from its stack's cluster_id output where the stack exists,
// so that the plan is of the cluster the stack deployed, whatever else holds its name. Without a
// backend to ask (no Pulumi CLI, no passphrase) or a stack, a cluster is found by its name, and
// says why when something kept the stack from being read.
func (f *factory) clusterIDs(ctx context.Context, targets []deploy.Target, clusters []upgrade.Cluster) {
	b, err := f.backend(&deployOptions{})
	if err != nil {
		for i := range clusters {
			clusters[i].Note = "found by name, no stack read: " + firstLine(err.Error())
		}
		return
	}
	for i, t := range targets {
		id, err := deploy.StackOutput(ctx, b, t, "cluster_id")
		if err != nil {
			clusters[i].Note = "found by name, the stack not read: " + firstLine(err.Error())
		}
		clusters[i].ID = id
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func envOf(p upgrade.ClusterPlan) string {
	if p.Env == "" {
		return "-"
	}
	return p.Env
}

// upgradeText prints the fleet's order, then each cluster's path, what uses removed APIs, the
// cloud's checks, what blocks and what was not checked.
func upgradeText(w io.Writer, plans []upgrade.ClusterPlan) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ORDER\tFILE\tCLUSTER\tENV\tRUNNING\tTARGET\tSTEPS\tRESULT")
	for i, p := range plans {
		result := "ok"
		switch {
		case p.Blocked():
			result = "blocked"
		case p.Running != "" && len(p.Steps) == 0:
			result = "up to date"
		case p.Running == "":
			result = "not running"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", i+1, p.File, p.Cluster, envOf(p), dash(p.Running), p.Target, len(p.Steps), result)
	}
	_ = tw.Flush()
	for _, p := range plans {
		fmt.Fprintf(w, "\n%s (%s, %s):\n", p.Cluster, envOf(p), p.File)
		for i, s := range p.Steps {
			fmt.Fprintf(w, "  step %d: %s -> %s%s\n", i+1, s.From, s.To, removes(s))
		}
		for _, o := range p.Objects {
			fmt.Fprintf(w, "  removed API in use: %s %s: %s, removed in %s%s (from %s)\n", o.Kind, qualified(o), o.APIVersion, o.RemovedIn, useText(o.Use), o.Source)
		}
		for _, d := range p.Lint {
			fmt.Fprintf(w, "  clusterlint %s %s: %s %s\n", d.Severity, d.Check, d.Object, d.Message)
		}
		for _, b := range p.Blockers {
			fmt.Fprintf(w, "  blocked: %s\n", b)
		}
		for _, n := range p.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
		if len(p.Steps) == 0 && len(p.Blockers) == 0 && len(p.Notes) == 0 {
			fmt.Fprintln(w, "  up to date")
		}
	}
	fmt.Fprintf(w, "\nRemoved APIs: %s\n", upgrade.RemovedSource)
}

// upgradeMarkdown is the plan as a Markdown comment: the fleet's table, then the details.
func upgradeMarkdown(w io.Writer, plans []upgrade.ClusterPlan) {
	fmt.Fprintln(w, "### clusterplane upgrade plan")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| order | cluster | env | running | target | path | blocked |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for i, p := range plans {
		var path []string
		for _, s := range p.Steps {
			path = append(path, "`"+s.To+"`")
		}
		blocked := "no"
		if p.Blocked() {
			blocked = "**yes**"
		}
		fmt.Fprintf(w, "| %d | `%s` (%s) | %s | %s | `%s` | %s | %s |\n", i+1, p.Cluster, md(p.File), md(envOf(p)), md(dash(p.Running)),
			p.Target, strings.Join(path, " → "), blocked)
	}
	for _, p := range plans {
		if len(p.Objects)+len(p.Blockers)+len(p.Notes)+len(p.Lint) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n#### `%s` (%s)\n\n", p.Cluster, md(envOf(p)))
		for _, o := range p.Objects {
			fmt.Fprintf(w, "- removed API in use: %s `%s`: `%s`, removed in %s%s (from %s)\n", o.Kind, qualified(o), o.APIVersion, o.RemovedIn, useText(o.Use), o.Source)
		}
		for _, d := range p.Lint {
			fmt.Fprintf(w, "- clusterlint %s `%s`: %s %s\n", d.Severity, d.Check, md(d.Object), md(d.Message))
		}
		for _, b := range p.Blockers {
			fmt.Fprintf(w, "- **blocked**: %s\n", md(b))
		}
		for _, n := range p.Notes {
			fmt.Fprintf(w, "- note: %s\n", md(n))
		}
	}
	fmt.Fprintf(w, "\nRemoved APIs from the [Kubernetes deprecated API migration guide](%s).\n", upgrade.RemovedSource)
}

// md escapes what would break a Markdown table cell.
func md(s string) string { return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s) }

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func qualified(o upgrade.Object) string {
	if o.Namespace == "" {
		return o.Name
	}
	return o.Namespace + "/" + o.Name
}

func useText(v string) string {
	if v == "" {
		return ", no successor"
	}
	return ", use " + v
}

// removes says which APIs a step's release stops serving.
func removes(s upgrade.Step) string {
	if len(s.Removes) == 0 {
		return ""
	}
	var parts []string
	for _, r := range s.Removes {
		parts = append(parts, r.APIVersion()+" "+r.Kind)
	}
	return " (removes " + strings.Join(parts, ", ") + ")"
}
