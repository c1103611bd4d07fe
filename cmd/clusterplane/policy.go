package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/spf13/cobra"
)

// policyOptions are what --policy adds to preview and up.
type policyOptions struct {
	// file is --policy's values; nil for a command without the flag.
	file *[]string
	// policy is the compiled policy, nil when none was named.
	policy *policy.Policy
	// texts are the manifests' texts by stack key, for the positions of the fields rules name.
	texts map[string][]byte
	// results are each stack's broken rules, by stack key.
	results map[string][]policy.Result
}

// policyFlag adds --policy to a command that deploys or previews manifests.
func (o *deployOptions) policyFlag(cmd *cobra.Command) {
	o.policyOptions.file = cli.PolicyFlag(cmd)
}

// loadPolicy compiles the policy --policy or $CLUSTERPLANE_POLICY names, before any manifest is
// read: a bad rule stops the command with its file, line and column.
func (o *deployOptions) loadPolicy() error {
	if o.policyOptions.file == nil {
		return nil
	}
	p, err := cli.LoadPolicy(*o.policyOptions.file)
	o.policyOptions.policy = p
	return err
}

// keepText remembers a target's text for the positions of the fields a policy names.
func (o *deployOptions) keepText(t deploy.Target, data []byte) {
	if o.policyOptions.texts == nil {
		o.policyOptions.texts = map[string][]byte{}
	}
	o.policyOptions.texts[t.Key()] = data
}

// checkPolicy evaluates the policy over every target, each against the manifest its stack last
// deployed (read from the backend, never the cloud). The warnings are said on stderr. When a
// rule denies any manifest, no stack runs: the outcomes returned say which manifests were
// denied and which were not run, for the report; nil when none was denied.
func (f *factory) checkPolicy(ctx context.Context, b deploy.Backend, o *deployOptions, targets []deploy.Target) ([]deploy.Outcome, error) {
	p := o.policyOptions.policy
	if p == nil {
		return nil, nil
	}
	o.policyOptions.results = map[string][]policy.Result{}
	denied := false
	for _, t := range targets {
		old, err := deploy.LastDeployed(ctx, b, t)
		if err != nil {
			return nil, err
		}
		results, err := p.Evaluate(policy.Input{File: t.File, Data: o.policyOptions.texts[t.Key()], Manifest: t.Input, Old: old})
		if err != nil {
			return nil, err
		}
		o.policyOptions.results[t.Key()] = results
		for _, r := range results {
			fmt.Fprintln(f.Stderr, f.redactor().String(r.String()))
			denied = denied || r.Denied()
		}
	}
	if !denied {
		return nil, nil
	}
	outcomes := make([]deploy.Outcome, len(targets))
	for i, t := range targets {
		results := o.policyOptions.results[t.Key()]
		outcomes[i] = deploy.Outcome{Target: t, Status: deploy.Skipped, Reason: "not run: a manifest was denied by policy", Policy: results}
		if policy.Denied(results) {
			outcomes[i] = deploy.Outcome{Target: t, Status: deploy.Blocked, Reason: "denied by policy", Err: &policy.Error{Results: results},
				Policy: results}
		}
	}
	return outcomes, nil
}

// withPolicy adds each stack's broken rules (warnings: a denial runs nothing) to its outcome.
func (o *deployOptions) withPolicy(outcomes []deploy.Outcome) {
	for i := range outcomes {
		outcomes[i].Policy = o.policyOptions.results[outcomes[i].Target.Key()]
	}
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
