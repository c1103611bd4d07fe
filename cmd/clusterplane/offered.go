package main

import (
	"context"
	"fmt"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/pulumi/program"
	"google.golang.org/protobuf/proto"
)

// checkOffered asks each target's cloud, when a token is there, what it offers now, and refuses
// before the engine runs the regions, Kubernetes versions and node sizes it does not: validate only warns
// of them (its table may be older than the cloud), the cloud's own list decides. One call per
// cloud per run (upgrade.Offered); without a token nothing is asked and nothing changes. A cloud
// that does not answer is said as a warning, and the deploy goes on: the engine meets the same
// cloud. The error is the exit code of invalid input, every refusal said first.
func (f *factory) checkOffered(ctx context.Context, b deploy.Backend, o *deployOptions, targets []deploy.Target) error {
	refused := false
	warned := map[string]bool{}
	for _, t := range targets {
		cloud, base, token := upgrade.CloudAPI(t.Input)
		if token == "" {
			continue
		}
		cat, err := upgrade.Offered(ctx, cloud, base, token)
		if err != nil {
			if !warned[cloud] {
				warned[cloud] = true
				fmt.Fprintln(f.Stderr, f.redactor().String(fmt.Sprintf("warning: %v; regions, Kubernetes versions and sizes are not checked against %s's list", err, cloud)))
			}
			continue
		}
		data := o.policyOptions.texts[t.Key()]
		problems := program.Refusals(t.File, data, t.Input, nil, cat)
		if len(problems) == 0 {
			continue
		}
		// Only now is the stack read: what it runs already is kept, offered or not.
		var old proto.Message
		if old, err = deploy.LastDeployed(ctx, b, t); err != nil {
			f.printError(err)
			return cli.Exit(exitcode.Invalid)
		}
		if problems = program.Refusals(t.File, data, t.Input, old, cat); len(problems) > 0 {
			refused = true
			fmt.Fprintln(f.Stderr, f.redactor().String((&stackinput.Error{Problems: problems}).Error()))
		}
	}
	if refused {
		return cli.Exit(exitcode.Invalid)
	}
	return nil
}
