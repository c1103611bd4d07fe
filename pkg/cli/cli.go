// Package cli is the command line of the offline commands (validate, plan, diff), defined once:
// the clusterplane command serves every kind with them, each program binary its own kind (Main).
// Files are read by pkg/manifest/files, as the deploy commands read them, so that those take
// exactly the files validate checks.
package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/pulumi/program"
	"github.com/pkg/errors"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Program is what the offline commands need of a kind.
type Program = program.Offline

// App is one run of a command line over some kinds' programs.
type App struct {
	// Name is the command's name: clusterplane, or a program binary's.
	Name           string
	Programs       []Program
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// ExitError ends a command with an exit code; what it had to say it has said already.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit %d", e.Code) }

// Exit is the error that ends a command with code; nil for exitcode.OK.
func Exit(code int) error {
	if code == exitcode.OK {
		return nil
	}
	return &ExitError{Code: code}
}

// Execute runs root with args and returns the exit code: a command's ExitError gives its own,
// any other error is a usage error (exitcode.Usage), said on stderr with a pointer to --help.
func (a *App) Execute(root *cobra.Command, args []string) int {
	root.SetArgs(args)
	root.SetIn(a.Stdin)
	root.SetOut(a.Stdout)
	root.SetErr(a.Stderr)
	root.SilenceErrors, root.SilenceUsage = true, true
	root.SetFlagErrorFunc(flagError)
	cmd, err := root.ExecuteC()
	var exit *ExitError
	switch {
	case err == nil:
		return exitcode.OK
	case errors.As(err, &exit):
		return exit.Code
	}
	fmt.Fprintf(a.Stderr, "%s: %v\nRun '%s --help' for usage.\n", root.Name(), err, cmd.CommandPath())
	return exitcode.Usage
}

// examples are example lines, each started with the command's name (where a line does not place
// it itself with NAME), indented as cobra shows them.
func (a *App) examples(lines string) string {
	var out []string
	for _, line := range strings.Split(lines, "\n") {
		if strings.Contains(line, "NAME") {
			line = strings.ReplaceAll(line, "NAME", a.Name)
		} else {
			line = a.Name + " " + line
		}
		out = append(out, "  "+line)
	}
	return strings.Join(out, "\n")
}

// Program returns the program of a manifest kind (any case), nil when none is.
func (a *App) Program(kind string) Program {
	for _, p := range a.Programs {
		if strings.EqualFold(p.Kind(), kind) {
			return p
		}
	}
	return nil
}

// KindNames are the programs' kinds.
func (a *App) KindNames() []string {
	names := make([]string, len(a.Programs))
	for i, p := range a.Programs {
		names[i] = p.Kind()
	}
	return names
}

// Format is the value of an -o flag.
type Format struct {
	value   string
	allowed []string
	// flags are the command's, read when a value is refused: kubectl's "-o wide" is a flag of
	// its own here (--wide), and the error says so where the command has it.
	flags *pflag.FlagSet
}

func (f *Format) String() string { return f.value }
func (f *Format) Type() string   { return strings.Join(f.allowed, "|") }
func (f *Format) Set(s string) error {
	for _, a := range f.allowed {
		if s == a {
			f.value = s
			return nil
		}
	}
	if s == "wide" && f.flags != nil && f.flags.Lookup("wide") != nil {
		return errors.Errorf("output format %q: want %s (more columns are --wide)", s, strings.Join(f.allowed, " or "))
	}
	return errors.Errorf("output format %q: want %s", s, strings.Join(f.allowed, " or "))
}

// OutputFlag adds -o/--output to cmd, with completion of its values: allowed, the first the default.
func OutputFlag(cmd *cobra.Command, allowed ...string) *Format {
	if len(allowed) == 0 {
		allowed = []string{"text", "json"}
	}
	f := &Format{value: allowed[0], allowed: allowed, flags: cmd.Flags()}
	cmd.Flags().VarP(f, "output", "o", "output format: "+strings.Join(allowed, ", "))
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(allowed, cobra.ShellCompDirectiveNoFileComp))
	return f
}

// ManifestFiles completes file arguments with YAML and JSON files (and directories).
func ManifestFiles(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return []string{"yaml", "yml", "json"}, cobra.ShellCompDirectiveFilterFileExt
}
