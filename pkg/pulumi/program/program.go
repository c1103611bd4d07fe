// Package program is one kind's program: the Pulumi program that deploys a stack input (Stack),
// and the offline checks on files already read (Check, Plan, Diff) that the command line of
// package cli runs, in the program binaries and in clusterplane alike.
package program

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/catalogue"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/clusterplane/clusterplane/pkg/pulumi/programinput"
	"github.com/clusterplane/clusterplane/pkg/pulumi/stackrecord"
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
	// Effects returns the kind's table of what changing each field does, which diff reads.
	Effects func() *effects.Table
	// Driver is the driver of the kind's cloud, by which diff reads the cloud's prices from its
	// API. The kind's entry names it, so that its program links its own cloud's driver alone;
	// without one, diff prices from the repository's table, as plan does.
	Driver cloud.Driver
}

// Offline is what the offline commands (validate, plan, diff) run for one kind, its stack-input
// type erased: a Program is one.
type Offline interface {
	// Kind is the manifest kind, e.g. "DigitalOceanKubernetesCluster".
	Kind() string
	Check(file string, data []byte) Verdict
	Plan(f File, format string, stdout, stderr io.Writer) int
	Diff(oldFile, newFile File, format string, allowReplace bool, stdout, stderr io.Writer) int
	// Parse reads and validates a file into a new stack input of the kind: what a policy
	// (pkg/change/policy) is evaluated over.
	Parse(f File) (proto.Message, error)
}

// StartedByPulumi reports whether the Pulumi language host started the process: it hands the
// program the engine's and the resource monitor's addresses in the environment, and asks for
// the required plugins with PULUMI_PLUGINS.
func StartedByPulumi(getenv func(string) string) bool {
	plugins, _ := strconv.ParseBool(getenv("PULUMI_PLUGINS"))
	return getenv(pulumi.EnvMonitor) != "" || getenv(pulumi.EnvEngine) != "" || plugins
}

// Stack is the Pulumi program: load the stack input, validate it, deploy it.
func (p Program[T]) Stack(ctx *pulumi.Context) error {
	input := p.NewInput()
	if err := programinput.Load(ctx, input); err != nil {
		return err
	}
	if err := p.Resources(ctx, input); err != nil {
		return err
	}
	// What clusterplane reads back, so that a stack deployed this way (pulumi up in the program's
	// folder, the Pulumi Kubernetes Operator) reads the same in clusterplane status.
	stackrecord.Export(ctx, input)
	return nil
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
	if err := catalogue.ParseInput(f.Data, f.Name, input); err != nil {
		fmt.Fprintln(stderr, err)
		return exitcode.Invalid
	}
	result, err := mockrun.Run(func(ctx *pulumi.Context) error { return p.Resources(ctx, input) },
		mockrun.Options{Preview: true})
	if err != nil {
		fmt.Fprintln(stderr, "plan:", err)
		return exitcode.Invalid
	}
	// Plan stays offline, as it promises: the repository's prices, never the cloud's API (diff,
	// preview and up ask the API when a token is there).
	if c, ok := cloudlist.OfInput(input); ok {
		e := cost.Of(input, c.Prices())
		result.Cost = &e
	}
	write := mockrun.WriteText
	if format == "json" {
		write = mockrun.WriteJSON
	}
	if err := write(stdout, result); err != nil {
		fmt.Fprintln(stderr, "plan:", err)
		return exitcode.Invalid
	}
	return exitcode.OK
}

// Diff is the diff command on two files already read: it prints what deploying newFile over
// oldFile does (format "text" or "json") and returns exitcode.Blocked when that replaces a resource
// (unless allowReplace) or is refused.
func (p Program[T]) Diff(oldFile, newFile File, format string, allowReplace bool, stdout, stderr io.Writer) (code int) {
	defer crash(stderr, &code)
	oldInput, newInput := p.NewInput(), p.NewInput()
	for _, f := range []struct {
		file  File
		input T
	}{{oldFile, oldInput}, {newFile, newInput}} {
		if err := catalogue.ParseInput(f.file.Data, f.file.Name, f.input); err != nil {
			fmt.Fprintln(stderr, err)
			return exitcode.Invalid
		}
	}
	result, err := diff.Compare(p.Effects(), oldInput, newInput)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitcode.Invalid
	}
	if c, ok := cloudlist.OfInput(newInput); ok {
		p := p.prices(c, stderr)
		delta := cost.Compare(oldInput, newInput, p)
		result.Cost = &delta
		result.PriceRotations(p)
	}
	write := diff.WriteText
	if format == "json" {
		write = diff.WriteJSON
	}
	if err := write(stdout, result); err != nil {
		fmt.Fprintln(stderr, err)
		return exitcode.Invalid
	}
	if result.Blocks(allowReplace) {
		return exitcode.Blocked
	}
	return exitcode.OK
}

// Parse reads and validates f into a new stack input (stackinput.Parse).
func (p Program[T]) Parse(f File) (proto.Message, error) {
	input := p.NewInput()
	if err := catalogue.ParseInput(f.Data, f.Name, input); err != nil {
		return nil, err
	}
	return input, nil
}

// prices are the cloud c's prices for a diff: the cloud's when the program's driver is c's and a
// token can read them, the repository's table (named, with its date) otherwise, or with a
// warning when the cloud did not answer.
func (p Program[T]) prices(c cloudfacts.Cloud, stderr io.Writer) cost.Prices {
	if p.Driver == nil || p.Driver.ID() != c.ID() {
		return c.Prices()
	}
	prices, warning := cloud.ReadPrices(context.Background(), p.Driver)
	if warning != "" {
		fmt.Fprintln(stderr, warning)
	}
	return prices
}

// crash turns a panic into exitcode.Crash, so that a bug never exits 2 (usage) as Go's runtime would.
// Deferred by every entry point.
func crash(stderr io.Writer, code *int) {
	if r := recover(); r != nil {
		fmt.Fprintln(stderr, "internal error (a bug, not your input): please report it with the command you ran")
		*code = exitcode.Crash
	}
}
