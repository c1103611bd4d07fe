package main

import (
	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/spf13/cobra"
)

// policyOptions are what --policy adds to preview and up.
type policyOptions struct {
	// file is --policy's values; nil for a command without the flag.
	file *[]string
}

// policyFlag adds --policy to a command that deploys or previews manifests.
func (o *deployOptions) policyFlag(cmd *cobra.Command) {
	o.policyOptions.file = cli.PolicyFlag(cmd)
}

// loadPolicy compiles the policy --policy or $CLUSTERPLANE_POLICY names, before any manifest is
// read: a bad rule stops the command with its file, line and column. It is nil when none is named.
func (o *deployOptions) loadPolicy() (*policy.Policy, error) {
	if o.policyOptions.file == nil {
		return nil, nil
	}
	return cli.LoadPolicy(*o.policyOptions.file)
}
