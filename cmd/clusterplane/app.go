package main

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/explain"
	"github.com/clusterplane/clusterplane/pkg/program"
	"github.com/clusterplane/clusterplane/pkg/stackinput"
	"github.com/clusterplane/clusterplane/registry"
	"github.com/pkg/errors"
	"github.com/spf13/cobra"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// kind is one kind of the registry, with its stack input's descriptor.
type kind struct {
	registry.Kind
	stackInput protoreflect.MessageDescriptor
}

func kindOf(k registry.Kind) kind {
	return kind{Kind: k, stackInput: k.NewStackInput().ProtoReflect().Descriptor()}
}

// app is one run of the command.
type app struct {
	kinds          []kind
	stdin          io.Reader
	stdout, stderr io.Writer
	explainer      *explain.Explainer
	// code is the exit code the command that ran chose; usage errors exit with ExitUsage.
	code int
	// outMu serialises output and exit codes of stacks deployed in parallel; askMu their
	// questions.
	outMu, askMu sync.Mutex
}

// raise sets the exit code to code unless a worse one is set; stacks in parallel call it.
func (a *app) raise(code int) {
	a.outMu.Lock()
	defer a.outMu.Unlock()
	a.code = max(a.code, code)
}

func newApp(kinds []kind, stdin io.Reader, stdout, stderr io.Writer) *app {
	inputs := make([]protoreflect.MessageDescriptor, len(kinds))
	for i, k := range kinds {
		inputs[i] = k.stackInput
	}
	return &app{kinds: kinds, stdin: stdin, stdout: stdout, stderr: stderr, explainer: explain.New(inputs...)}
}

// run runs the command line args and returns the exit code: 0 ok, 1 invalid input or a failed
// command, 2 usage errors, and whatever a program's command returns (diff: see diffExitCodes).
func (a *app) run(args []string) int {
	a.code = program.ExitOK
	root := a.root()
	root.SetArgs(args)
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	cmd, err := root.ExecuteC()
	if err != nil {
		fmt.Fprintf(a.stderr, "clusterplane: %v\nRun '%s --help' for usage.\n", err, cmd.CommandPath())
		return program.ExitUsage
	}
	return a.code
}

func (a *app) root() *cobra.Command {
	root := &cobra.Command{
		Use:   "clusterplane",
		Short: "Validate, plan, diff, explain and deploy Clusterplane manifests of every kind",
		Long: `clusterplane works on the manifests and stack inputs of every Clusterplane kind. Each file is
read as the kind it names. validate, plan, diff, explain, schema, kinds and regions work offline:
no credentials, Pulumi CLI or network. preview, up, refresh, drift, status, kubeconfig, adopt and
destroy work through
the Pulumi CLI on PATH (see the README, "Deploy with clusterplane").

Exit codes: 0 ok, 1 invalid input, 2 usage error.
` + diffExitCodes,
		SilenceErrors: true,
		SilenceUsage:  true,
		// Without a command, print the help rather than nothing.
		Run: func(cmd *cobra.Command, _ []string) { _ = cmd.Help() },
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return err })
	root.AddCommand(a.validateCommand(), a.planCommand(), a.diffCommand(), a.explainCommand(),
		a.schemaCommand(), a.kindsCommand(), a.regionsCommand(), versionCommand(),
		a.previewCommand(), a.upCommand(), a.refreshCommand(), a.driftCommand(), a.destroyCommand(), a.statusCommand(),
		a.kubeconfigCommand(), a.adoptCommand())
	return root
}

// kind returns the kind named name (its kind or program name, any case), nil when none is.
func (a *app) kind(name string) *kind {
	for i, k := range a.kinds {
		if strings.EqualFold(k.Name, name) || strings.EqualFold(k.Program, name) {
			return &a.kinds[i]
		}
	}
	return nil
}

func (a *app) kindNames() []string {
	names := make([]string, len(a.kinds))
	for i, k := range a.kinds {
		names[i] = k.Name
	}
	return names
}

// kindNamed returns the kind a file's head names; on failure the error names the file.
func (a *app) kindNamed(file string, head stackinput.Head) (*kind, error) {
	for i, k := range a.kinds {
		if head.Kind == k.Name {
			return &a.kinds[i], nil
		}
	}
	if head.Kind == "" {
		return nil, errors.Errorf("%s: names no kind; a manifest (or a stack input's target) has `kind:` one of %s",
			file, strings.Join(a.kindNames(), ", "))
	}
	return nil, errors.Errorf("%s: unknown kind %q; want one of %s", file, head.Kind, strings.Join(a.kindNames(), ", "))
}

// readFile reads file ("-" for standard input) once and returns its text and the kind it
// names; on failure it prints why, sets the exit code and returns nil.
func (a *app) readFile(file string) (program.File, *kind) {
	f, k, _, err := a.load(input{file: file, explicit: true})
	if err != nil {
		fmt.Fprintln(a.stderr, err)
		a.code = program.ExitInvalid
		return program.File{}, nil
	}
	return f, k
}

// format is the value of an -o flag: text or json.
type format string

func (f *format) String() string { return string(*f) }
func (f *format) Type() string   { return "text|json" }
func (f *format) Set(s string) error {
	if s != "text" && s != "json" {
		return errors.Errorf("output format %q: want text or json", s)
	}
	*f = format(s)
	return nil
}

// outputFlag adds -o/--output to cmd, with completion of its values.
func outputFlag(cmd *cobra.Command) *format {
	f := format("text")
	cmd.Flags().VarP(&f, "output", "o", "output format: text or json")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return &f
}

// manifestFiles completes file arguments with YAML and JSON files (and directories).
func manifestFiles(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return []string{"yaml", "yml", "json"}, cobra.ShellCompDirectiveFilterFileExt
}
