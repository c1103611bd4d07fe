package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/clusterplane/clusterplane/pkg/atomicwrite"
	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/deploy/pko"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/release"
	"github.com/pkg/errors"
	"github.com/spf13/cobra"
)

func newCmdExport(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write manifests as another tool's resources",
	}
	cmd.AddCommand(newCmdExportPKO(f, nil))
	return cmd
}

type exportPKOOptions struct {
	f *factory
	// deployOptions are the files and --stack, read as preview reads them.
	deployOptions
	// pko are the operator's options; dir is --dir, "" for standard output.
	pko pko.Options
	dir string
}

func newCmdExportPKO(f *factory, runF func(*exportPKOOptions) error) *cobra.Command {
	o := &exportPKOOptions{f: f}
	o.offline = true // an export writes files only: its own refusal of a token is what it says
	opts := &o.pko
	cmd := &cobra.Command{
		Use:   "pko FILE|DIR...",
		Short: "Write the Pulumi Kubernetes Operator's resources that deploy manifests as clusterplane up does",
		Long: `export pko writes, for each manifest, a Stack (pulumi.com/v1) that makes the Pulumi Kubernetes
Operator deploy it as clusterplane up would: the same stack on the same backend, the kind's program
from the workspace image (deploy/pko/Dockerfile), the manifest as its stack input, the backend,
passphrase and token from the Kubernetes Secret named by --secret (keys ` + pko.BackendKey + `,
` + pko.PassphraseKey + `, ` + pko.TokenKeys() + `), a pool after its cluster
(prerequisites), and no destroy on finalize for a protected cluster. Every Stack's workspace pod
runs as the ServiceAccount --service-account, which the export creates in the namespace -n
(` + pko.DefaultNamespace + ` when not given) and binds to ` + pko.AuthDelegator + `, as PKO requires.
--drift-check adds an Update (auto.pulumi.com/v1alpha1) per stack that previews with
expectNoChanges: drift reported, not undone; --drift-schedule CRON adds a CronJob that creates
such an Update per stack afresh on that schedule, as an account allowed only to create Updates.
It works offline; nothing is deployed. It refuses what preview refuses: two manifests of one
stack, and a reference to a stack that no manifest given deploys.

--image is required unless clusterplane is a release build, which names its own tag of
` + pko.WorkspaceImage + `.

Without --dir it writes one YAML stream to standard output; with it, one file per manifest, named
after its Stack, and ` + pko.NamespaceFile + `.yaml with what the namespace needs. The
clusterplane.dev/manifest annotation is the manifest's path from the repository root (or the
folder given): the same manifests give the same bytes on any machine, and never a secret.
Step by step: deploy/pko/README.md.`,
	}
	cmd.Flags().StringVar(&o.stack, "stack", "", "the stack of the one manifest given, instead of <name>-<env>")
	cmd.Flags().StringVar(&opts.Image, "image", "", "the workspace image (default "+pko.WorkspaceImage+":<version> on a release build; required otherwise)")
	cmd.Flags().StringVar(&opts.Secret, "secret", "clusterplane", "the Kubernetes Secret with the backend URL, passphrase and tokens")
	cmd.Flags().StringVarP(&opts.Namespace, "namespace", "n", pko.DefaultNamespace, "the namespace of the resources")
	cmd.Flags().StringVar(&opts.ServiceAccount, "service-account", "clusterplane", "the ServiceAccount the stacks' workspace pods run as (created and bound to "+pko.AuthDelegator+")")
	cmd.Flags().BoolVar(&opts.DriftCheck, "drift-check", false, "add an Update per stack that reports drift without undoing it")
	cmd.Flags().StringVar(&opts.DriftSchedule, "drift-schedule", "", "add a CronJob that creates such an Update per stack on this cron schedule (\"0 6 * * *\")")
	cmd.Flags().StringVar(&opts.KubectlImage, "kubectl-image", pko.DefaultKubectlImage, "the image the drift CronJob runs kubectl create in")
	cmd.Flags().StringVarP(&o.dir, "dir", "d", "", "write one file per manifest into this folder")
	cmd.Args = cobra.MinimumNArgs(1)
	cmd.ValidArgsFunction = cli.ManifestFiles
	cmd.RunE = onFiles(o, &o.files, runF, exportPKORun)
	return cmd
}

func exportPKORun(o *exportPKOOptions) error {
	f, opts, dir := o.f, o.pko, o.dir
	if opts.Image == "" {
		image, err := pko.DefaultImage(releaseVersion())
		if err != nil {
			fmt.Fprintln(f.Stderr, err)
			return cli.Exit(exitcode.Invalid)
		}
		opts.Image = image
	}
	targets, err := f.targets(&o.deployOptions)
	if err != nil {
		return err
	}
	opts.Manifest = pko.ManifestPaths(o.files)
	exported, err := pko.Export(targets, opts)
	if err != nil {
		fmt.Fprintln(f.Stderr, err)
		return cli.Exit(exitcode.Invalid)
	}
	ns, err := pko.Namespace(exported, opts)
	if err != nil {
		fmt.Fprintln(f.Stderr, err)
		return cli.Exit(exitcode.Invalid)
	}
	exported = append([]pko.File{ns}, exported...)
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return errors.Wrap(err, "create "+dir)
		}
	}
	for i, file := range exported {
		data, err := file.YAML()
		if err != nil {
			return err
		}
		if dir != "" {
			path := filepath.Join(dir, file.Name+".yaml")
			if err := atomicwrite.File(path, data); err != nil {
				return errors.Wrap(err, "write "+path)
			}
			fmt.Fprintf(f.Stderr, "%s: %s\n", file.From(opts), path)
			continue
		}
		if i > 0 {
			fmt.Fprintln(f.Stdout, "---")
		}
		fmt.Fprintf(f.Stdout, "# %s\n", file.From(opts))
		_, _ = f.Stdout.Write(data)
	}
	return nil
}

// releaseVersion is clusterplane's version; a variable so that a test can be a release build.
var releaseVersion = release.Version
