package cli

import (
	"github.com/pkg/errors"
	"github.com/spf13/cobra"
)

// SplitAtDash splits a command line that may end with a command to run after --, as in
// `kubeconfig FILE -- kubectl get nodes`: it wants exactly n arguments before --, and a command
// after it when -- is given (nil without --), which none of the flags named alone may go with
// (a flag that sends the output elsewhere). Its errors are usage errors.
func SplitAtDash(c *cobra.Command, args []string, n int, alone ...string) (before, command []string, err error) {
	before = args
	if at := c.ArgsLenAtDash(); at >= 0 {
		if before, command = args[:at], args[at:]; len(command) == 0 {
			return nil, nil, errors.New("nothing after --: give the command to run, e.g. -- kubectl get nodes")
		}
		for _, flag := range alone {
			if c.Flags().Changed(flag) {
				return nil, nil, errors.Errorf("--%s and a command after -- do not go together", flag)
			}
		}
	}
	if len(before) != n {
		return nil, nil, errors.Errorf("%s takes %d argument(s) before --, not %d: a command to run goes after --",
			c.Name(), n, len(before))
	}
	return before, command, nil
}
