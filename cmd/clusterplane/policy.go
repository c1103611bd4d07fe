package main

import (
	"fmt"
	"strings"

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

// policyLines writes a stack's broken rules as Markdown list items, denials first as the file
// orders them: the rule, where the manifest breaks it, and the rule's message.
func policyLines(b *strings.Builder, results []policy.Result) {
	for _, denied := range []bool{true, false} {
		for _, r := range results {
			if r.Denied() != denied {
				continue
			}
			what := "**policy warning**"
			if denied {
				what = "**denied by policy**"
			}
			at := r.File
			if r.Line > 0 {
				at = fmt.Sprintf("%s:%d", r.File, r.Line)
			}
			if r.Field != "" {
				at = "`" + r.Field + "` (" + at + ")"
			}
			fmt.Fprintf(b, "- %s `%s` (%s) at %s: %s\n", what, r.Rule, r.Policy, at, cell(r.Message))
			if r.Error != "" {
				fmt.Fprintf(b, "  - the rule could not be evaluated: %s\n", cell(r.Error))
			}
		}
	}
}
