package main

import (
	"fmt"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/discover"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/manifest/labels"
	"github.com/pkg/errors"
	"github.com/spf13/cobra"
)

type discoverOptions struct {
	f *factory
	// cloud is a cloud's ID (discover.Clouds); dir is --dir; force overwrites files that exist.
	cloud string
	dir   string
	force bool
	// discover are the region, cluster and --include-managed; the run adds the cloud and token.
	discover discover.Options
}

func newCmdDiscover(f *factory, runF func(*discoverOptions) error) *cobra.Command {
	opts := &discoverOptions{f: f}
	o := &opts.discover
	cmd := &cobra.Command{
		Use:   "discover " + strings.Join(discover.Clouds(), "|") + " --dir DIR",
		Short: "Write the manifests of an account's Kubernetes clusters and node pools as they run",
		Long: `discover reads every Kubernetes cluster and node pool of the account whose token is in the
environment (` + discover.Environment() + `
the other commands take them) and writes into DIR one manifest per cluster (its default pool
inside) and one per other pool, named after the cloud's names. The manifests describe the
resources as they run: a pool refers to its cluster with valueFrom, the cloud's id is the
annotation ` + deploytarget.CloudIDAnnotation + ` (adopt reads it), and what the cloud sets by itself
(its own tags and node labels) is left out. Each file starts with a comment saying where it came
from. No kubeconfig or token is ever written.

It lists rather than reading resource by resource (a page of clusters a request, with their
pools, region by region where the cloud's API is), paced under ` + fmt.Sprint(discover.DefaultPerMinute) + ` requests a minute, waiting
as Retry-After says on a 429. Existing files are not overwritten unless --force. The clusters
clusterplane deployed itself (tagged resource-kind:) are left out with their pools, and counted,
unless --include-managed: their stacks already hold them.

Next: clusterplane adopt DIR, then clusterplane preview DIR.

` + exitcode.Help(exitcode.OK, exitcode.Invalid, exitcode.Usage, exitcode.Blocked, exitcode.Interrupted),
		Example: "  clusterplane discover " + discover.Clouds()[0] + " --dir clusters\n  clusterplane discover " + discover.Clouds()[0] +
			" --region fra1 --cluster dev-fra1 --dir clusters",
		Args:      cobra.ExactArgs(1),
		ValidArgs: discover.Clouds(),
	}
	cmd.Flags().StringVarP(&opts.dir, "dir", "d", "", "the folder to write the manifests into (required)")
	cmd.Flags().StringVar(&o.Region, "region", "", "only the clusters of this region")
	cmd.Flags().StringVar(&o.Cluster, "cluster", "", "only the cluster with this name or id, and its pools")
	cmd.Flags().BoolVar(&opts.force, "force", false, "overwrite files that exist")
	cmd.Flags().BoolVar(&o.IncludeManaged, "include-managed", false, "also write the clusters clusterplane deployed (tagged resource-kind:) and their pools")
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		opts.cloud = args[0]
		return runOrReal(opts, runF, discoverRun)
	}
	return cmd
}

func discoverRun(opts *discoverOptions) error {
	f, o, dir := opts.f, opts.discover, opts.dir
	if err := discover.KnownCloud(opts.cloud); err != nil {
		return err
	}
	if dir == "" {
		return errors.New("--dir is required")
	}
	o.Cloud, o.Kinds = opts.cloud, f.kinds
	cloudName, err := o.Account()
	var noToken *discover.NoTokenError
	if errors.As(err, &noToken) {
		fmt.Fprintf(f.Stderr, "discover: %v\n", err)
		return cli.Exit(exitcode.Invalid)
	} else if err != nil {
		f.printError(err)
		return cli.Exit(exitcode.Invalid)
	}
	o.Command = o.CommandLine()
	ctx, stop := cli.Interruptible()
	defer stop()
	res, err := discover.Discover(ctx, o)
	if err != nil {
		if ctx.Err() != nil {
			return cli.Exit(exitcode.Interrupted)
		}
		f.printError(errors.Wrap(err, "discover"))
		return cli.Exit(exitcode.Invalid)
	}
	if res.Managed > 0 {
		fmt.Fprintf(f.Stderr, "note: %d %s clusterplane deployed (tagged %s:) left out with their pools: their stacks hold them, or, after an interrupted up, "+
			"`status` names the id to record with refresh --import-pending-create (--include-managed writes them)\n",
			res.Managed, plural(res.Managed, "cluster", "clusters"), labels.ResourceKind)
	}
	if res.ManagedPools > 0 {
		n := res.ManagedPools
		fmt.Fprintf(f.Stderr, "note: %d %s left out: clusterplane deployed %s as a stack of its own (tagged %s:), which holds it "+
			"(--include-managed writes %s)\n", n, plural(n, "node pool", "node pools"), plural(n, "it", "each"),
			labels.ResourceKind, plural(n, "it", "them"))
	}
	for _, n := range res.Notes {
		fmt.Fprintln(f.Stderr, "note: "+n)
	}
	if err := f.writeDiscovered(dir, res.Files, opts.force); err != nil {
		return err
	}
	fmt.Fprintf(f.Stdout, "%d %s and %d more node %s of %s: %d %s in %s (%d %s)\n",
		res.Clusters, plural(res.Clusters, "cluster", "clusters"), res.Pools, plural(res.Pools, "pool", "pools"), cloudName,
		len(res.Files), plural(len(res.Files), "file", "files"), dir, res.Requests, plural(res.Requests, "request", "requests"))
	return nil
}

// plural is one or many as n says.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// writeDiscovered writes the files into dir (discover.Write), naming each file written, and
// says why none was when one exists already.
func (f *factory) writeDiscovered(dir string, files []discover.File, force bool) error {
	written, err := discover.Write(dir, files, force)
	for _, w := range written {
		fmt.Fprintf(f.Stdout, "%s: %s %s\n", w.Path, w.Kind, w.CloudID)
	}
	var exist *discover.ExistError
	switch {
	case errors.As(err, &exist):
		fmt.Fprintf(f.Stderr, "discover: %s %s; nothing written (--force overwrites %s)\n", strings.Join(exist.Paths, ", "),
			plural(len(exist.Paths), "exists", "exist"), plural(len(exist.Paths), "it", "them"))
		return cli.Exit(exitcode.Blocked)
	case err != nil:
		f.printError(err)
		return cli.Exit(exitcode.Invalid)
	}
	return nil
}
