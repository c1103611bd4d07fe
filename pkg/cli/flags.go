package cli

import (
	"sort"
	"strings"

	"github.com/pkg/errors"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
)

// flagError is a flag the command does not take, said with the flag it likely meant: one of its
// own spelled close to it, or else the commands that do take it (refresh --yes: up and destroy).
func flagError(cmd *cobra.Command, err error) error {
	if letter, ok := strings.CutPrefix(err.Error(), "unknown shorthand flag: '"); ok && letter != "" {
		return shorthandError(cmd, letter[:1], err)
	}
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	// --no-refresh, as some tools spell turning a switch off: here it is --refresh=false.
	if on, ok := strings.CutPrefix(name, "no-"); ok {
		if f := cmd.Flags().Lookup(on); f != nil && f.Value.Type() == "bool" {
			return errors.Errorf("unknown flag: --%s; did you mean --%s=false?", name, on)
		}
	}
	best, bestDistance := "", len(name)/3+2
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if d := apikinds.Distance(name, f.Name); d < bestDistance {
			best, bestDistance = f.Name, d
		}
	})
	if best != "" {
		return errors.Errorf("unknown flag: --%s; did you mean --%s?", name, best)
	}
	switch {
	case name == "auto-approve" && cmd.Flags().Lookup("yes") != nil:
		// Terraform's and Terragrunt's word for it.
		return errors.Errorf("unknown flag: --%s; did you mean --yes?", name)
	case name == "dry-run":
		return errors.Errorf("unknown flag: --%s; `%s preview` shows what up would change, changing nothing", name, cmd.Root().Name())
	}
	var takers []string
	for _, other := range cmd.Root().Commands() {
		if other != cmd && other.Flags().Lookup(name) != nil {
			takers = append(takers, other.Name())
		}
	}
	if len(takers) == 0 {
		return err
	}
	sort.Strings(takers)
	list := takers[0] + " does"
	if n := len(takers); n > 1 {
		list = strings.Join(takers[:n-1], ", ") + " and " + takers[n-1] + " do"
	}
	return errors.Errorf("unknown flag: --%s; %s does not take it, %s", name,
		strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" "), list)
}

// shorthandError is a one-letter flag the command does not take, said with its one flag that
// starts with the letter, if it has exactly one (-y: --yes, as pulumi up -y means).
func shorthandError(cmd *cobra.Command, letter string, err error) error {
	var starts []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && strings.HasPrefix(f.Name, letter) {
			starts = append(starts, f.Name)
		}
	})
	if len(starts) != 1 {
		return err
	}
	return errors.Errorf("%v; did you mean --%s?", err, starts[0])
}
