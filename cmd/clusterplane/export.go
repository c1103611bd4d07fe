package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/deploy/pko"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/release"
	"github.com/pkg/errors"
	"github.com/spf13/cobra"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// WorkspaceImage is the workspace image a release's export pko names unless --image says
// otherwise: the one deploy/pko/Dockerfile builds, tagged with clusterplane's version.
const WorkspaceImage = "ghcr.io/clusterplane/workspace"

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
` + pko.PassphraseKey + `, ` + pko.DigitalOceanKey + `, ` + pko.CivoKey + `), a pool after its cluster
(prerequisites), and no destroy on finalize for a protected cluster. Every Stack's workspace pod
runs as the ServiceAccount --service-account, which the export creates in the namespace -n
(` + pko.DefaultNamespace + ` when not given) and binds to ` + pko.AuthDelegator + `, as PKO requires.
--drift-check adds an Update (auto.pulumi.com/v1alpha1) per stack that previews with
expectNoChanges: drift reported, not undone; --drift-schedule CRON adds a CronJob that creates
such an Update per stack afresh on that schedule, as an account allowed only to create Updates.
It works offline; nothing is deployed. It refuses what preview refuses: two manifests of one
stack, and a reference to a stack that no manifest given deploys.

--image is required unless clusterplane is a release build, which names its own tag of
` + WorkspaceImage + `.

Without --dir it writes one YAML stream to standard output; with it, one file per manifest, named
after its Stack, and ` + pko.NamespaceFile + `.yaml with what the namespace needs. The
clusterplane.dev/manifest annotation is the manifest's path from the repository root (or the
folder given): the same manifests give the same bytes on any machine, and never a secret.
Step by step: deploy/pko/README.md.`,
	}
	cmd.Flags().StringVar(&o.stack, "stack", "", "the stack of the one manifest given, instead of <name>-<env>")
	cmd.Flags().StringVar(&opts.Image, "image", "", "the workspace image (default "+WorkspaceImage+":<version> on a release build; required otherwise)")
	cmd.Flags().StringVar(&opts.Secret, "secret", "clusterplane", "the Kubernetes Secret with the backend URL, passphrase and tokens")
	cmd.Flags().StringVarP(&opts.Namespace, "namespace", "n", pko.DefaultNamespace, "the namespace of the resources")
	cmd.Flags().StringVar(&opts.ServiceAccount, "service-account", "clusterplane", "the ServiceAccount the stacks' workspace pods run as (created and bound to "+pko.AuthDelegator+")")
	cmd.Flags().BoolVar(&opts.DriftCheck, "drift-check", false, "add an Update per stack that reports drift without undoing it")
	cmd.Flags().StringVar(&opts.DriftSchedule, "drift-schedule", "", "add a CronJob that creates such an Update per stack on this cron schedule (\"0 6 * * *\")")
	cmd.Flags().StringVar(&opts.KubectlImage, "kubectl-image", pko.DefaultKubectlImage, "the image the drift CronJob runs kubectl create in")
	cmd.Flags().StringVarP(&o.dir, "dir", "d", "", "write one file per manifest into this folder")
	cmd.Args = cobra.MinimumNArgs(1)
	cmd.ValidArgsFunction = cli.ManifestFiles
	cmd.RunE = func(_ *cobra.Command, files []string) error {
		o.files = files
		return runOrReal(o, runF, exportPKORun)
	}
	return cmd
}

func exportPKORun(o *exportPKOOptions) error {
	f, opts, dir := o.f, o.pko, o.dir
	if opts.Image == "" {
		image, err := defaultImage(releaseVersion())
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
	opts.Manifest = manifestPaths(o.files)
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
			if err := replaceFile(path, data); err != nil {
				return errors.Wrap(err, "write "+path)
			}
			fmt.Fprintf(f.Stderr, "%s: %s\n", exportedFrom(file, opts), path)
			continue
		}
		if i > 0 {
			fmt.Fprintln(f.Stdout, "---")
		}
		fmt.Fprintf(f.Stdout, "# %s\n", exportedFrom(file, opts))
		_, _ = f.Stdout.Write(data)
	}
	return nil
}

// exportedFrom is what the output says a file is: the manifest it exports, or what the namespace needs.
func exportedFrom(f pko.File, opts pko.Options) string {
	if f.Target.File == "" {
		return "the namespace: service account " + opts.ServiceAccount
	}
	if opts.Manifest != nil {
		return opts.Manifest(f.Target.File)
	}
	return f.Target.File
}

// releaseVersion is clusterplane's version; a variable so that a test can be a release build.
var releaseVersion = release.Version

// defaultImage is the workspace image a build of version v names: its own tag on a release (vX.Y.Z,
// as deploy/pko/Dockerfile's build command tags it), and
// none on a development build, whose version (0.0.0, or a pseudo-version or +dirty of go build
// from a checkout) names no published image.
func defaultImage(v string) (string, error) {
	sv := "v" + v
	if v == "0.0.0" || !semver.IsValid(sv) || semver.Build(sv) != "" || module.IsPseudoVersion(sv) {
		return "", errors.Errorf("--image is required: this clusterplane is a development build (version %s), and %s has no image of that tag; "+
			"build deploy/pko/Dockerfile, push it, and pass --image REGISTRY/NAME:TAG (a release build defaults to its own tag)", v, WorkspaceImage)
	}
	return WorkspaceImage + ":v" + v, nil
}

// manifestPaths is what the clusterplane.dev/manifest annotation says of a file: its path from
// the root of the git repository holding it, else from the folder given on the command line it
// was found in, else its name; with forward slashes. The same tree exported on any machine, from
// any checkout, gives the same annotation, where an absolute path differed from one to the next.
func manifestPaths(args []string) func(string) string {
	var dirs []string
	for _, arg := range args {
		if info, err := os.Stat(arg); err == nil && info.IsDir() {
			if abs, err := filepath.Abs(arg); err == nil {
				dirs = append(dirs, abs)
			}
		}
	}
	return func(file string) string {
		if file == stackinput.Stdin {
			return file
		}
		abs, err := filepath.Abs(file)
		if err != nil {
			return filepath.ToSlash(filepath.Base(file))
		}
		if root, ok := gitRoot(filepath.Dir(abs)); ok {
			if rel, err := filepath.Rel(root, abs); err == nil {
				return filepath.ToSlash(rel)
			}
		}
		for _, dir := range dirs {
			if rel, err := filepath.Rel(dir, abs); err == nil && !strings.HasPrefix(rel, "..") {
				return filepath.ToSlash(rel)
			}
		}
		return filepath.Base(abs)
	}
}

// gitRoot is the nearest folder from dir upwards holding .git (a folder, or a worktree's file).
func gitRoot(dir string) (string, bool) {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
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
