package main

import (
	"io"

	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/deploy/upgradecmd"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/serve/servecmd"
	"github.com/spf13/cobra"
)

// app is one run of the command: the offline commands of package cli over every kind (validate,
// plan, diff), and the commands only clusterplane has, each built from the factory f by its
// newCmdX constructor (explain, schema, kinds, regions, the deploy commands, export, upgrade,
// sandbox, discover).
type app struct {
	cli.App
	// f is what the commands need: the streams, the kinds, the engine's backend (factory.go).
	f *factory
}

func newApp(list kinds.List, stdin io.Reader, stdout, stderr io.Writer) *app {
	programs := make([]cli.Program, len(list))
	for i, k := range list {
		programs[i] = k.Offline
	}
	a := &app{
		App: cli.App{Name: "clusterplane", Programs: programs, Stdin: stdin, Stdout: stdout, Stderr: stderr},
	}
	a.f = newFactory(list, stdin, stdout, stderr)
	return a
}

// run runs the command line args and returns the exit code (package exitcode).
func (a *app) run(args []string) int {
	return a.Execute(a.root(), args)
}

func (a *app) root() *cobra.Command {
	root := &cobra.Command{
		Use:   "clusterplane",
		Short: "Validate, plan, diff, explain and deploy Clusterplane manifests of every kind",
		Long: `clusterplane works on the manifests and stack inputs of every Clusterplane kind. Each file is
read as the kind it names. validate, plan, diff, explain, schema, kinds and regions work offline:
no credentials, Pulumi CLI or network. preview, up, refresh, drift, status, kubeconfig, adopt and
destroy work through the Pulumi CLI on PATH (see the README, "Deploy with clusterplane").

` + exitcode.Help() + `
` + exitcode.Diff,
		// Without a command, print the help rather than nothing.
		Run: func(cmd *cobra.Command, _ []string) { _ = cmd.Help() },
	}
	root.AddCommand(a.ValidateCommand(), a.PlanCommand(), a.DiffCommand(), newCmdExplain(a.f, nil),
		newCmdSchema(a.f, nil), newCmdKinds(a.f, nil), newCmdRegions(a.f, nil), cli.VersionCommand())
	root.AddCommand(deployCommands(a.f)...)
	root.AddCommand(newCmdExport(a.f))
	root.AddCommand(upgradecmd.New(a.f.upgradeEnv()))
	root.AddCommand(newCmdSandbox(a.f, nil))
	root.AddCommand(newCmdDiscover(a.f, nil))
	root.AddCommand(servecmd.New(a.f.kinds))
	return root
}
