// Package program is the command line every Clusterplane program shares: without arguments,
// started by the Pulumi engine, the binary is the Pulumi program; `validate FILE` and
// `plan FILE [-o json|text]` work offline, with no Pulumi engine, cloud or token. `clusterplane`
// runs the same commands for every kind.
package program

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/clusterplane/clusterplane/pkg/diff"
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

// Exit codes of the offline commands. A crash is never 1 or 2: Go's runtime exits 2 on a panic,
// so Run recovers and answers ExitCrash.
const (
	ExitOK      = 0
	ExitInvalid = 1 // the stack input is invalid or the plan failed
	ExitUsage   = 2
	// ExitBlocked is diff's answer when deploying NEW would replace (without --allow-replace) or
	// be refused.
	ExitBlocked = 3
	// ExitCrash is a bug of the program, never of the input.
	ExitCrash = 70
)

// Run runs an offline command and returns its exit code.
func (p Program[T]) Run(args []string, stdout, stderr io.Writer) (code int) {
	defer crash(stderr, &code)
	if len(args) == 0 {
		return p.usage(stderr)
	}
	switch args[0] {
	case "validate":
		file, format, ok := planArgs(args[1:])
		if !ok {
			return p.usage(stderr)
		}
		return p.validate(file, format, stdout, stderr)
	case "plan":
		file, format, ok := planArgs(args[1:])
		if !ok {
			return p.usage(stderr)
		}
		return p.plan(file, format, stdout, stderr)
	case "diff":
		oldFile, newFile, format, allowReplace, ok := diffArgs(args[1:])
		if !ok {
			return p.usage(stderr)
		}
		if oldFile == "-" && newFile == "-" {
			// Standard input can be read once: as clusterplane says it.
			fmt.Fprintln(stderr, "standard input (-) given twice: give one of OLD and NEW as a file or a pipe")
			return ExitUsage
		}
		return p.diff(oldFile, newFile, format, allowReplace, stdout, stderr)
	case "help", "-h", "--help":
		p.usage(stdout)
		return ExitOK
	default:
		return p.usage(stderr)
	}
}

func (p Program[T]) plan(file, format string, stdout, stderr io.Writer) int {
	data, err := stackinput.Read(file)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return ExitInvalid
	}
	return p.Plan(File{Name: file, Data: data}, format, stdout, stderr)
}

// File is a file's text and its name as the user wrote it. Commands take the text already read
// because a pipe (`<(git show ...)`, "-") can be read only once: whoever found the file's kind
// has consumed it.
type File struct {
	Name string
	Data []byte
}

// Plan is the plan command on a file already read: it prints what the file would register and
// export (format "text" or "json") and returns the exit code.
func (p Program[T]) Plan(f File, format string, stdout, stderr io.Writer) (code int) {
	defer crash(stderr, &code)
	input := p.NewInput()
	if err := stackinput.Parse(f.Data, f.Name, input); err != nil {
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

// validate checks one file ("-" for standard input) and prints "valid", or every problem: as
// lines on stderr, or with -o json as the file's verdict on stdout for CI annotations.
func (p Program[T]) validate(file, format string, stdout, stderr io.Writer) int {
	v := Verdict{File: file, Kind: p.Kind()}
	if data, err := stackinput.Read(file); err != nil {
		v.Err = err
	} else {
		v = p.Check(file, data)
	}
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			fmt.Fprintln(stderr, err)
			return ExitInvalid
		}
	} else if v.Err != nil {
		fmt.Fprintln(stderr, v.Err)
	} else {
		fmt.Fprintln(stdout, "valid")
	}
	if v.Err != nil {
		return ExitInvalid
	}
	return ExitOK
}

func (p Program[T]) diff(oldFile, newFile, format string, allowReplace bool, stdout, stderr io.Writer) int {
	files := make([]File, 2)
	for i, name := range []string{oldFile, newFile} {
		data, err := stackinput.Read(name)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return ExitInvalid
		}
		files[i] = File{Name: name, Data: data}
	}
	return p.Diff(files[0], files[1], format, allowReplace, stdout, stderr)
}

// Diff is the diff command on two files already read: it prints what deploying newFile over
// oldFile does (format "text" or "json") and returns ExitBlocked when that replaces a resource
// (unless allowReplace) or is refused.
func (p Program[T]) Diff(oldFile, newFile File, format string, allowReplace bool, stdout, stderr io.Writer) (code int) {
	defer crash(stderr, &code)
	oldInput, newInput := p.NewInput(), p.NewInput()
	for _, f := range []struct {
		file  File
		input T
	}{{oldFile, oldInput}, {newFile, newInput}} {
		if err := stackinput.Parse(f.file.Data, f.file.Name, f.input); err != nil {
			fmt.Fprintln(stderr, err)
			return ExitInvalid
		}
	}
	result, err := diff.Compare(oldInput, newInput)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return ExitInvalid
	}
	write := diff.WriteText
	if format == "json" {
		write = diff.WriteJSON
	}
	if err := write(stdout, result); err != nil {
		fmt.Fprintln(stderr, err)
		return ExitInvalid
	}
	if result.Blocks(allowReplace) {
		return ExitBlocked
	}
	return ExitOK
}

// crash turns a panic into ExitCrash, so that a bug never exits 2 (usage) as Go's runtime would.
// Deferred by every entry point: clusterplane calls Plan and Diff without Run.
func crash(stderr io.Writer, code *int) {
	if r := recover(); r != nil {
		fmt.Fprintln(stderr, "internal error (a bug, not your input): please report it with the command you ran")
		*code = ExitCrash
	}
}

// diffArgs reads `OLD NEW [-o json|text] [--allow-replace]`, flags anywhere.
func diffArgs(args []string) (oldFile, newFile, format string, allowReplace, ok bool) {
	var rest []string
	for _, a := range args {
		if a == "--allow-replace" {
			allowReplace = true
		} else {
			rest = append(rest, a)
		}
	}
	files, format, ok := outputArgs(rest)
	if !ok || len(files) != 2 {
		return "", "", "", false, false
	}
	return files[0], files[1], format, allowReplace, true
}

// planArgs reads `FILE [-o json|text]` with the flag before or after the file.
func planArgs(args []string) (file, format string, ok bool) {
	files, format, ok := outputArgs(args)
	if !ok || len(files) != 1 {
		return "", "", false
	}
	return files[0], format, true
}

// outputArgs splits args into `-o json|text` (default text) and the rest, in order.
func outputArgs(args []string) (rest []string, format string, ok bool) {
	format = "text"
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "-o", "--output":
			if i+1 >= len(args) || (args[i+1] != "json" && args[i+1] != "text") {
				return nil, "", false
			}
			format = args[i+1]
			i++
		default:
			rest = append(rest, a)
		}
	}
	return rest, format, true
}

func (p Program[T]) usage(w io.Writer) int {
	fmt.Fprintf(w, `usage:
  %[1]s                          run as the Pulumi program (pulumi up)
  %[1]s validate FILE [-o json|text]
                                 check a manifest or stack input ("-" reads standard input);
                                 prints "valid" or every problem as FILE:LINE:COLUMN: path: message
  %[1]s plan FILE [-o json|text] show what would be registered and exported, offline
  %[1]s diff OLD NEW [-o json|text] [--allow-replace]
                                 what deploying NEW over OLD would do to each changed field;
                                 exit 3 when something would be replaced or refused

exit codes: 0 ok, 1 invalid input (or a failed plan), 2 usage, 3 diff found a replacement or
refusal, 70 internal error
`, p.Name)
	return ExitUsage
}
