// Package program is the command line every Clusterplane program shares: without arguments,
// started by the Pulumi engine, the binary is the Pulumi program; `validate FILE` and
// `plan FILE [-o json|text]` work offline, with no Pulumi engine, cloud or token. `clusterplane`
// runs the same commands for every kind.
package program

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/clusterplane/clusterplane/pkg/plan"
	"github.com/clusterplane/clusterplane/pkg/stackinput"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"
)

// Program is one kind's program: how to make its stack-input message and deploy it.
type Program[T proto.Message] struct {
	// Name is the program's name in usage text, e.g. "digitaloceankubernetescluster".
	Name string
	// NewInput returns an empty stack-input message.
	NewInput func() T
	// Resources deploys a validated stack input.
	Resources func(ctx *pulumi.Context, input T) error
}

// Main runs the program with the process's arguments and exits. Without arguments it is the
// Pulumi program when the Pulumi engine started it, and prints its usage otherwise.
func (p Program[T]) Main() {
	if len(os.Args) < 2 {
		if StartedByPulumi(os.Getenv) {
			pulumi.Run(p.Deploy)
			return
		}
		fmt.Fprintf(os.Stderr, "%s is a Pulumi program: `pulumi up` in its folder runs it. Offline, use a command.\n", p.Name)
		os.Exit(p.usage(os.Stderr))
	}
	os.Exit(p.Run(os.Args[1:], os.Stdout, os.Stderr))
}

// StartedByPulumi reports whether the Pulumi language host started the process: it hands the
// program the engine's and the resource monitor's addresses in the environment, and asks for
// the required plugins with PULUMI_PLUGINS.
func StartedByPulumi(getenv func(string) string) bool {
	plugins, _ := strconv.ParseBool(getenv("PULUMI_PLUGINS"))
	return getenv(pulumi.EnvMonitor) != "" || getenv(pulumi.EnvEngine) != "" || plugins
}

// Deploy is the Pulumi program: load the stack input, validate it, deploy it.
func (p Program[T]) Deploy(ctx *pulumi.Context) error {
	input := p.NewInput()
	if err := stackinput.Load(ctx, input); err != nil {
		return err
	}
	return p.Resources(ctx, input)
}

// Exit codes of the offline commands.
const (
	ExitOK      = 0
	ExitInvalid = 1 // the stack input is invalid or the plan failed
	ExitUsage   = 2
)

// Run runs an offline command and returns its exit code.
func (p Program[T]) Run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return p.usage(stderr)
	}
	switch args[0] {
	case "validate":
		if len(args) != 2 {
			return p.usage(stderr)
		}
		return p.validate(args[1], stdout, stderr)
	case "plan":
		file, format, ok := planArgs(args[1:])
		if !ok {
			return p.usage(stderr)
		}
		return p.plan(file, format, stdout, stderr)
	case "help", "-h", "--help":
		p.usage(stdout)
		return ExitOK
	default:
		return p.usage(stderr)
	}
}

func (p Program[T]) validate(file string, stdout, stderr io.Writer) int {
	data, err := Read(file, os.Stdin)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return ExitInvalid
	}
	if v := p.Check(file, data); v.Err != nil {
		fmt.Fprintln(stderr, v.Err)
		return ExitInvalid
	}
	fmt.Fprintln(stdout, "valid")
	return ExitOK
}

func (p Program[T]) plan(file, format string, stdout, stderr io.Writer) int {
	input := p.NewInput()
	if err := stackinput.LoadFile(file, input); err != nil {
		fmt.Fprintln(stderr, err)
		return ExitInvalid
	}
	result, err := plan.Run(func(ctx *pulumi.Context) error { return p.Resources(ctx, input) },
		plan.Options{Preview: true})
	if err != nil {
		fmt.Fprintln(stderr, "plan:", err)
		return ExitInvalid
	}
	write := plan.WriteText
	if format == "json" {
		write = plan.WriteJSON
	}
	if err := write(stdout, result); err != nil {
		fmt.Fprintln(stderr, "plan:", err)
		return ExitInvalid
	}
	return ExitOK
}

// planArgs reads `FILE [-o json|text]` with the flag before or after the file.
func planArgs(args []string) (file, format string, ok bool) {
	format = "text"
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "-o", "--output":
			if i+1 >= len(args) || (args[i+1] != "json" && args[i+1] != "text") {
				return "", "", false
			}
			format = args[i+1]
			i++
		default:
			if file != "" {
				return "", "", false
			}
			file = a
		}
	}
	return file, format, file != ""
}

func (p Program[T]) usage(w io.Writer) int {
	fmt.Fprintf(w, `usage:
  %[1]s                          run as the Pulumi program (pulumi up)
  %[1]s validate FILE            check a manifest or stack input; prints "valid" or every violation
  %[1]s plan FILE [-o json|text] show what would be registered and exported, offline
`, p.Name)
	return ExitUsage
}
