package cli

import (
	"os"

	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/pulumi/program"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/spf13/cobra"
)

// Main is a program binary's main. Without arguments, started by the Pulumi engine, the binary is
// the Pulumi program (stack); otherwise it runs the offline commands for its own kind, the same
// commands clusterplane runs for every kind.
func Main(name string, p Program, stack pulumi.RunFunc) {
	if len(os.Args) < 2 && program.StartedByPulumi(os.Getenv) {
		// Marked as clusterplane marks the stack, so that `clusterplane up` and this program may
		// deploy it in turn with no change between them.
		pulumi.Run(func(ctx *pulumi.Context) error {
			return stack(stackmark.Carry(ctx, program.Mark(ctx, os.Getenv)))
		})
		return
	}
	a := &App{Name: name, Programs: []Program{p}, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	os.Exit(a.Execute(a.ProgramCommand(), os.Args[1:]))
}

// ProgramCommand is a program binary's command line: validate, plan and diff of its kind.
func (a *App) ProgramCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   a.Name,
		Short: "The Pulumi program of " + a.KindNames()[0] + " manifests, with offline commands",
		Long: a.Name + ` is a Pulumi program: ` + "`pulumi up`" + ` in its folder runs it, reading its stack input from the
stackInput setting, STACK_INPUT_FILE or stack-input.yaml. Offline, with no engine, cloud or token,
its commands check, plan and diff ` + a.KindNames()[0] + ` manifests, as clusterplane's do.

` + exitcode.Help(exitcode.OK, exitcode.Invalid, exitcode.Usage, exitcode.Blocked, exitcode.Crash),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Run by hand without a command: say what it is, as a usage error.
			cmd.SetOut(cmd.ErrOrStderr())
			_ = cmd.Help()
			return Exit(exitcode.Usage)
		},
	}
	root.AddCommand(a.ValidateCommand(), a.PlanCommand(), a.DiffCommand())
	return root
}
