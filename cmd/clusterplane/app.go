package main

import (
	"io"
	"strings"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/explain"
	"github.com/clusterplane/clusterplane/registry"
	"github.com/spf13/cobra"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// app is one run of the command: the offline commands of package cli over every kind, and the
// commands only clusterplane has (explain, schema, kinds, regions, version and the deploy
// commands).
type app struct {
	cli.App
	kinds     []registry.Kind
	explainer *explain.Explainer
	// deploy is how the deploy commands reach the engine.
	deploy deployEnv
	// outMu serialises the progress of stacks deployed in parallel; askMu their questions.
	outMu, askMu sync.Mutex
}

func newApp(kinds []registry.Kind, stdin io.Reader, stdout, stderr io.Writer) *app {
	inputs := make([]protoreflect.MessageDescriptor, len(kinds))
	programs := make([]cli.Program, len(kinds))
	for i, k := range kinds {
		inputs[i] = k.StackInput()
		programs[i] = k.Offline
	}
	return &app{
		App:       cli.App{Name: "clusterplane", Programs: programs, Stdin: stdin, Stdout: stdout, Stderr: stderr},
		kinds:     kinds,
		explainer: explain.New(inputs...),
	}
}

// run runs the command line args and returns the exit code: 0 ok, 1 invalid input or a failed
// command, 2 usage errors, 3 a change or state that must not pass unasked (see exitCodes).
func (a *app) run(args []string) int {
	return a.Execute(a.root(), args)
}

// exitCodes are every command's exit codes, in the one wording the help and the README share.
const exitCodes = `Exit codes: 0 ok; 1 invalid input, or a deployment that failed or was skipped; 2 usage
error; 3 something that must not pass unasked: diff or preview found a replacement or a refused
change, up refused a change or was not confirmed, drift found drift, adopt found the manifest
disagreeing, destroy was refused for a protected cluster; 130 interrupted (Ctrl-C); 70 an
internal error (a bug, never your input).`

func (a *app) root() *cobra.Command {
	root := &cobra.Command{
		Use:   "clusterplane",
		Short: "Validate, plan, diff, explain and deploy Clusterplane manifests of every kind",
		Long: `clusterplane works on the manifests and stack inputs of every Clusterplane kind. Each file is
read as the kind it names. validate, plan, diff, explain, schema, kinds and regions work offline:
no credentials, Pulumi CLI or network. preview, up, refresh, drift, status, kubeconfig, adopt and
destroy work through the Pulumi CLI on PATH (see the README, "Deploy with clusterplane").

` + exitCodes + `
` + cli.DiffExitCodes,
		// Without a command, print the help rather than nothing.
		Run: func(cmd *cobra.Command, _ []string) { _ = cmd.Help() },
	}
	root.AddCommand(a.ValidateCommand(), a.PlanCommand(), a.DiffCommand(), a.explainCommand(),
		a.schemaCommand(), a.kindsCommand(), a.regionsCommand(), versionCommand())
	root.AddCommand(a.deployCommands()...)
	root.AddCommand(a.exportCommand())
	root.AddCommand(a.sandboxCommand())
	return root
}

// kind returns the kind named name (its kind or program name, any case), nil when none is.
func (a *app) kind(name string) *registry.Kind {
	for i, k := range a.kinds {
		if strings.EqualFold(k.Name, name) || strings.EqualFold(k.Program, name) {
			return &a.kinds[i]
		}
	}
	return nil
}
