package main

import (
	"github.com/clusterplane/clusterplane/pkg/stackinput"
	"github.com/pkg/errors"
	"github.com/spf13/cobra"
)

// planCommand runs the file's program's plan: the same code and output as
// `go run ./iac/pulumi/<kind> plan FILE`.
func (a *app) planCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plan FILE",
		Short: "Show what a manifest or stack input would deploy, offline",
		Long: `plan runs the program of the file's kind under Pulumi's mocks, as a preview, and prints every
resource it would register (with its inputs and options) and every output it would export.
Secrets read "[secret]", values known only after deployment "[unknown]".

It exits 0, or 1 when the file is invalid.`,
		Example:           "  clusterplane plan examples/digitaloceankubernetescluster/production.yaml -o json",
		Args:              fileArgs(1),
		ValidArgsFunction: manifestFiles,
	}
	output := outputFlag(cmd)
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		if k := a.kindOfFile(args[0]); k != nil {
			a.code = k.run([]string{"plan", args[0], "-o", string(*output)}, a.stdout, a.stderr)
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
the change does: which resources are updated in place and which are replaced.

It exits 0 when nothing changes, 3 when something does, 1 when a file is invalid, 2 on usage
errors.`,
		Example:           "  clusterplane diff live.yaml proposed.yaml --allow-replace",
		Args:              fileArgs(2),
		ValidArgsFunction: manifestFiles,
	}
	output := outputFlag(cmd)
	allowReplace := cmd.Flags().Bool("allow-replace", false, "do not fail when the change replaces a resource")
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		oldKind := a.kindOfFile(args[0])
		if oldKind == nil {
			return nil
		}
		newKind := a.kindOfFile(args[1])
		if newKind == nil {
			return nil
		}
		if oldKind.name != newKind.name {
			return errors.Errorf("%s is a %s and %s a %s: diff compares two manifests of one kind",
				args[0], oldKind.name, args[1], newKind.name)
		}
		run := []string{"diff", args[0], args[1]}
		if cmd.Flags().Changed("output") {
			run = append(run, "-o", string(*output))
		}
		if *allowReplace {
			run = append(run, "--allow-replace")
		}
		a.code = oldKind.run(run, a.stdout, a.stderr)
		return nil
	}
	return cmd
}

// fileArgs accepts exactly n file arguments, none of them standard input: the programs' plan
// and diff read files.
func fileArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return err
		}
		for _, arg := range args {
			if arg == stackinput.Stdin {
				return errors.Errorf("%s reads files, not standard input", cmd.Name())
			}
		}
		return nil
	}
}
