package main

import (
	"slices"

	"github.com/clusterplane/clusterplane/pkg/stackinput"
	"github.com/pkg/errors"
	"github.com/spf13/cobra"
)

// planCommand runs the file's program's plan: the same code and output as
// `go run ./iac/pulumi/<kind> plan FILE`.
func (a *app) planCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plan FILE|-",
		Short: "Show what a manifest or stack input would deploy, offline",
		Long: `plan runs the program of the file's kind under Pulumi's mocks, as a preview, and prints every
resource it would register (with its inputs and options) and every output it would export.
Secrets read "[secret]", values known only after deployment "[unknown]". FILE may be a pipe;
- reads standard input.

It exits 0, or 1 when the file is invalid.`,
		Example: `  clusterplane plan examples/digitaloceankubernetescluster/production.yaml -o json
  clusterplane plan <(git show HEAD:cluster.yaml)`,
		Args:              fileArgs(1),
		ValidArgsFunction: manifestFiles,
	}
	output := outputFlag(cmd)
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		if f, k := a.readFile(args[0]); k != nil {
			a.code = k.Plan(f, string(*output), a.stdout, a.stderr)
		}
		return nil
	}
	return cmd
}

// diffCommand hands both files to their kind's program's diff, so that clusterplane diffs
// exactly as the programs do.
func (a *app) diffCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Show what changing a manifest from OLD to NEW does to the cloud resources, offline",
		Long: `diff plans OLD and NEW, two files of the same kind, with that kind's program and shows what
the change does: which resources are updated in place, which are replaced and which are refused.
Either file may be a pipe, or - for standard input.

` + diffExitCodes,
		Example: `  clusterplane diff live.yaml proposed.yaml --allow-replace
  clusterplane diff <(git show HEAD:cluster.yaml) cluster.yaml`,
		Args:              fileArgs(2),
		ValidArgsFunction: manifestFiles,
	}
	output := outputFlag(cmd)
	allowReplace := cmd.Flags().Bool("allow-replace", false, "exit 0, not 3, when the change replaces a resource; a refused change still exits 3")
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		oldFile, oldKind := a.readFile(args[0])
		if oldKind == nil {
			return nil
		}
		// The same path twice is read once: a second read of a pipe would find it empty.
		newFile, newKind := oldFile, oldKind
		if args[1] != args[0] {
			if newFile, newKind = a.readFile(args[1]); newKind == nil {
				return nil
			}
		}
		if oldKind.Name != newKind.Name {
			return errors.Errorf("%s is a %s and %s a %s: diff compares two manifests of one kind",
				args[0], oldKind.Name, args[1], newKind.Name)
		}
		a.code = oldKind.Diff(oldFile, newFile, string(*output), *allowReplace, a.stdout, a.stderr)
		return nil
	}
	return cmd
}

// diffExitCodes is diff's exit codes in the one wording the help texts and the README share,
// so that what users read cannot drift from what diff does (TestDiffExitsAsItsHelpSays).
const diffExitCodes = `diff exits 0 when nothing is replaced or refused, 3 when something is, 1 for invalid input, 2
for usage; --allow-replace turns 3 into 0 for intended replacements, a refused change still exits 3.`

// fileArgs accepts exactly n file arguments, standard input (-) at most once: it can be read
// only once.
func fileArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return err
		}
		if i := slices.Index(args, stackinput.Stdin); i >= 0 && slices.Contains(args[i+1:], stackinput.Stdin) {
			return errors.New("standard input (-) given twice")
		}
		return nil
	}
}
