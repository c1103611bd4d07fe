// Package upgradecmd is `clusterplane upgrade`: plan, which assesses each cluster's Kubernetes
// upgrade (pkg/change/upgrade), and apply, which carries the plans out across a fleet
// (pkg/deploy/upgraderun). It is flags and rendering over those packages; what it needs of the
// clusterplane command (its files, backend, redaction and exit codes) comes in an Env.
package upgradecmd

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/pkg/errors"
	"github.com/spf13/cobra"
)

// Env is what the upgrade commands take from the clusterplane command, so that they read files,
// open the backend, redact and exit as every deploy command does.
type Env struct {
	Stdout, Stderr io.Writer
	// Targets reads and validates the files, saying every problem; its error carries the exit
	// code.
	Targets func(files []string) ([]deploytarget.Target, error)
	// Files is how the deploy commands read files (for the pipeline's own reads).
	Files deploytarget.Files
	// Backend opens the stacks' backend, with the secrets provider of new stacks.
	Backend func(secretsProvider string) (stackstate.Backend, error)
	// Exit says err as the deploy commands say a run that never got to a stack and returns the
	// error that carries its exit code.
	Exit func(err error) error
	// Redact removes the run's secrets from a text printed.
	Redact func(string) string
}

// print writes out, redacted, to standard output.
func (e Env) print(out *bytes.Buffer) error {
	_, err := io.WriteString(e.Stdout, e.Redact(out.String()))
	return errors.Wrap(err, "write the report")
}

// say writes a line, redacted, to standard error.
func (e Env) say(line string) { fmt.Fprintln(e.Stderr, e.Redact(line)) }

// New is `clusterplane upgrade`: plan and apply.
func New(env Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "upgrade",
		Short: "Plan and carry out Kubernetes upgrades of deployed clusters",
		// `upgrade FILE` is a plan forgotten, not a request for help: exiting 0 after the help
		// would read as a plan that found nothing to do.
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return errors.Errorf("upgrade has no command %q: to plan the upgrades, run `clusterplane upgrade plan %s`",
					args[0], strings.Join(args, " "))
			}
			return cmd.Help()
		},
	}
	cmd.AddCommand(newPlan(env, nil), newApply(env))
	return cmd
}
