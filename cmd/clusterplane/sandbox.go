package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/deploy/sandbox"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/spf13/cobra"
)

// sandboxOptions are the flags every sandbox command shares.
type sandboxOptions struct {
	f           *factory
	dir, engine string
	// reset is --reset; args are the command to run inside, after --.
	reset bool
	args  []string
}

// resolve is the sandbox's folder and engine as the flags and the environment name them.
func (o *sandboxOptions) resolve() (string, sandbox.Engine, error) {
	dir, err := sandbox.Dir(o.dir)
	if err != nil {
		return "", sandbox.Engine{}, err
	}
	engine, err := sandbox.FindEngine(o.engine)
	return dir, engine, err
}

func newCmdSandbox(f *factory, runF func(*sandboxOptions) error) *cobra.Command {
	o, example := &sandboxOptions{f: f}, cli.ExampleFolder(f.kinds.Names())
	cmd := &cobra.Command{
		Use:   "sandbox [--dir DIR] [--reset] [-- COMMAND ARGS...]",
		Short: "Run commands against loopback clouds (" + cli.CloudsOr() + "): no account, no token",
		Long: `sandbox runs COMMAND (clusterplane up, status, destroy, pulumi, a CI script...) against loopback
APIs of every cloud on 127.0.0.1, a local file backend with a generated passphrase, and the
real provider plugins pointed at them. Nothing leaves the machine: it refuses to start while a
real token (` + cli.TokenVars() + `, ...) is in the environment, and inside it a manifest
whose providerConfig names its own API URL or token is refused.

Clouds and stacks stay in DIR until sandbox reset (default: the nearest ` + sandbox.DefaultDir + ` in the current
directory or a folder above, else a new one in the current directory; $` + sandbox.DirEnv + ` inside a sandbox). A new sandbox holds the clusters, networks and VPC the
examples name by id. sandbox env starts it in the background and prints the environment to
source; sandbox stop stops that. docs/sandbox.md says what the clouds simulate and what not; a
Kubernetes upgrade there runs for $` + sandbox.UpgradeTimeEnv + ` where the cloud reports one under way
(4s by default, 0 at once).

It needs the Pulumi engine and the provider plugins that ` + "`make engine`" + ` builds into .engine (found
upwards from the current directory or from clusterplane's own folder, or named by --engine or
$` + sandbox.EngineEnv + `). It exits with COMMAND's exit code, 1 when it cannot start.`,
		Example: `  clusterplane sandbox -- clusterplane up examples/` + example + `/minimal.yaml --yes
  clusterplane sandbox -- clusterplane status examples/` + example + `/minimal.yaml
  eval "$(clusterplane sandbox env)"; clusterplane up my-manifests/ --yes; clusterplane sandbox stop
  clusterplane sandbox --reset`,
		Args: cobra.ArbitraryArgs,
	}
	cmd.PersistentFlags().StringVar(&o.dir, "dir", "", "the sandbox's folder (default "+sandbox.DefaultDir+", or $"+sandbox.DirEnv+")")
	cmd.PersistentFlags().StringVar(&o.engine, "engine", "", "the folder with bin/pulumi and the provider plugins (default .engine, found upwards)")
	cmd.Flags().BoolVar(&o.reset, "reset", false, "stop the sandbox and remove its folder (before COMMAND, if one is given)")
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if c.ArgsLenAtDash() != 0 && len(args) > 0 {
			return fmt.Errorf("unknown sandbox command %q: give the command to run after --", args[0])
		}
		if len(args) == 0 && !o.reset {
			return c.Help()
		}
		o.args = args
		return runOrReal(o, runF, sandboxRun)
	}
	cmd.AddCommand(newCmdSandboxEnv(o), newCmdSandboxStop(o), newCmdSandboxReset(o), newCmdSandboxServe(o))
	return cmd
}

// The sandbox's subcommands share its options (--dir, --engine).

func newCmdSandboxEnv(o *sandboxOptions) *cobra.Command {
	return &cobra.Command{
		Use:     "env",
		Aliases: []string{"start"},
		Short:   "Start the sandbox in the background and print the export lines that enter it",
		Long: `env starts the sandbox in the background, unless it runs already, and prints the shell lines
that point the engine, the providers and clusterplane at it: eval "$(clusterplane sandbox env)".
The passphrase stays in its file; the tokens printed open nothing but the loopback clouds.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return sandboxStart(o) },
	}
}

func newCmdSandboxStop(o *sandboxOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "stop",
		Short: "Stop the sandbox running in the background; its clouds and stacks stay in its folder",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			dir, err := sandbox.Dir(o.dir)
			if err != nil {
				return o.f.sandboxFailed(err)
			}
			stopped, err := sandbox.Stop(dir)
			if err != nil {
				return o.f.sandboxFailed(err)
			}
			if stopped {
				fmt.Fprintf(o.f.Stderr, "stopped the sandbox in %s\n", dir)
			} else {
				fmt.Fprintf(o.f.Stderr, "no sandbox runs in %s\n", dir)
			}
			return nil
		},
	}
}

func newCmdSandboxReset(o *sandboxOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "reset",
		Short: "Stop the sandbox and remove its folder: its clouds, stacks, passphrase and plugins' links",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return sandboxReset(o) },
	}
}

func newCmdSandboxServe(o *sandboxOptions) *cobra.Command {
	return &cobra.Command{
		Use:    "serve",
		Short:  "Serve the sandbox's clouds in the foreground until interrupted (what env starts)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			dir, engine, err := o.resolve()
			if err != nil {
				return o.f.sandboxFailed(err)
			}
			ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer cancel()
			if err := sandbox.Serve(ctx, dir, engine); err != nil {
				return o.f.sandboxFailed(err)
			}
			return nil
		},
	}
}

// sandboxRun resets the sandbox when asked, then runs the command given inside it, if any.
func sandboxRun(o *sandboxOptions) error {
	if o.reset {
		if err := sandboxReset(o); err != nil {
			return err
		}
	}
	if len(o.args) == 0 {
		return nil
	}
	return sandboxExec(o)
}

// sandboxFailed says why the sandbox could not do its part and exits 1 (exitcode.Invalid, the
// code of a failed command, as the exit codes are today).
func (f *factory) sandboxFailed(err error) error {
	fmt.Fprintf(f.Stderr, "clusterplane sandbox: %v\n", err)
	return cli.Exit(exitcode.Invalid)
}

func sandboxReset(o *sandboxOptions) error {
	dir, err := sandbox.Dir(o.dir)
	if err != nil {
		return o.f.sandboxFailed(err)
	}
	removed, err := sandbox.Reset(dir)
	if err != nil {
		return o.f.sandboxFailed(err)
	}
	if !removed {
		fmt.Fprintf(o.f.Stderr, "no sandbox in %s: nothing removed\n", dir)
		return nil
	}
	fmt.Fprintf(o.f.Stderr, "removed the sandbox in %s\n", dir)
	return nil
}

// sandboxExec runs the command given inside the sandbox and exits with its exit code.
func sandboxExec(o *sandboxOptions) error {
	dir, engine, err := o.resolve()
	if err != nil {
		return o.f.sandboxFailed(err)
	}
	fresh := !sandbox.Exists(dir)
	s, err := sandbox.Open(dir, engine)
	if err != nil {
		return o.f.sandboxFailed(err)
	}
	if fresh {
		// Said, so that a command run where no sandbox was found does not silently start over.
		fmt.Fprintf(o.f.Stderr, "clusterplane sandbox: a new sandbox in %s (none here or in a folder above)\n", dir)
	}
	code, err := s.Run(context.Background(), o.args, o.f.Stdin, o.f.Stdout, o.f.Stderr)
	if closeErr := s.Close(); err == nil && closeErr != nil {
		err = closeErr
	}
	if err != nil {
		return o.f.sandboxFailed(err)
	}
	if code != 0 {
		return cli.Exit(code)
	}
	return nil
}

// sandboxStart starts the sandbox in the background and prints the lines that enter it.
func sandboxStart(o *sandboxOptions) error {
	dir, engine, err := o.resolve()
	if err != nil {
		return o.f.sandboxFailed(err)
	}
	exe, err := os.Executable()
	if err != nil {
		return o.f.sandboxFailed(err)
	}
	server, err := sandbox.Start(dir, engine, exe)
	if err != nil {
		return o.f.sandboxFailed(err)
	}
	for _, line := range sandbox.ShellLines(dir, engine, server) {
		fmt.Fprintln(o.f.Stdout, line)
	}
	fmt.Fprintf(o.f.Stderr, "the sandbox runs in the background (process %d) in %s; stop it with: %s sandbox stop\n", server.PID, dir, exe)
	return nil
}
