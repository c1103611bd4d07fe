package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/pko"
	"github.com/clusterplane/clusterplane/pkg/plugin"
	"github.com/pkg/errors"
	"github.com/spf13/cobra"
)

// WorkspaceImage is the workspace image export pko names unless --image says otherwise: the one
// deploy/pko/Dockerfile builds, tagged with clusterplane's version.
const WorkspaceImage = "ghcr.io/clusterplane/workspace"

func (a *app) exportCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write manifests as another tool's resources",
	}
	cmd.AddCommand(a.exportPKOCommand())
	return cmd
}

func (a *app) exportPKOCommand() *cobra.Command {
	o := &deployOptions{}
	opts := pko.Options{}
	var dir string
	cmd := &cobra.Command{
		Use:   "pko FILE|DIR...",
		Short: "Write the Pulumi Kubernetes Operator's resources that deploy manifests as clusterplane up does",
		Long: `export pko writes, for each manifest, a Stack (pulumi.com/v1) that makes the Pulumi Kubernetes
Operator deploy it as clusterplane up would: the same stack on the same backend, the kind's program
from the workspace image (deploy/pko/Dockerfile), the manifest as its stack input, the backend,
passphrase and token from the Kubernetes Secret named by --secret (keys ` + pko.BackendKey + `,
` + pko.PassphraseKey + `, ` + pko.DigitalOceanKey + `, ` + pko.CivoKey + `), a pool after its cluster
(prerequisites), and no destroy on finalize for a protected cluster. --drift-check adds an Update
(auto.pulumi.com/v1alpha1) per stack that previews with expectNoChanges: drift reported, not
undone. It works offline; nothing is deployed.

Without --dir it writes one YAML stream to standard output; with it, one file per manifest, named
after its Stack. The output is the same for the same manifests, and never holds a secret.`,
	}
	cmd.Flags().StringVar(&o.stack, "stack", "", "the stack of the one manifest given, instead of <name>-<env>")
	cmd.Flags().StringVar(&opts.Image, "image", WorkspaceImage+":"+plugin.Version(), "the workspace image")
	cmd.Flags().StringVar(&opts.Secret, "secret", "clusterplane", "the Kubernetes Secret with the backend URL, passphrase and tokens")
	cmd.Flags().StringVarP(&opts.Namespace, "namespace", "n", "", "the namespace of the resources")
	cmd.Flags().BoolVar(&opts.DriftCheck, "drift-check", false, "add an Update per stack that reports drift without undoing it")
	cmd.Flags().StringVarP(&dir, "dir", "d", "", "write one file per manifest into this folder")
	cmd.Args = cobra.MinimumNArgs(1)
	cmd.ValidArgsFunction = cli.ManifestFiles
	cmd.RunE = func(_ *cobra.Command, files []string) error {
		o.files = files
		targets, err := a.targets(o)
		if err != nil {
			return err
		}
		exported, err := pko.Export(targets, opts)
		if err != nil {
			fmt.Fprintln(a.Stderr, err)
			return cli.Exit(1)
		}
		if dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return errors.Wrap(err, "create "+dir)
			}
		}
		for i, f := range exported {
			data, err := f.YAML()
			if err != nil {
				return err
			}
			if dir != "" {
				path := filepath.Join(dir, f.Name+".yaml")
				if err := replaceFile(path, data); err != nil {
					return errors.Wrap(err, "write "+path)
				}
				fmt.Fprintf(a.Stderr, "%s: %s\n", f.Target.File, path)
				continue
			}
			if i > 0 {
				fmt.Fprintln(a.Stdout, "---")
			}
			fmt.Fprintf(a.Stdout, "# %s\n", f.Target.File)
			_, _ = a.Stdout.Write(data)
		}
		return nil
	}
	return cmd
}

// replaceFile writes data to path through a new file in the same folder renamed over path. A
// rename replaces the name itself: a symbolic link already there is replaced, never followed to
// overwrite whatever it points at, and a reader never sees a half-written file.
func replaceFile(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	// CreateTemp makes the file readable by its owner only; the resources hold no secret and are
	// meant to be committed and applied, as os.WriteFile's 0644 made them.
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
