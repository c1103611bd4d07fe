package main

import (
	"context"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/pkg/errors"
)

// alreadyManaged refuses, before the engine runs, the manifests whose stack already holds their
// cluster or pool: clusterplane deployed (or adopted) it, and importing it again would take the
// stack over a second time, its manifest replaced by the one given.
func alreadyManaged(ctx context.Context, b deploy.Backend, targets []deploy.Target) error {
	var managed []string
	for _, t := range targets {
		held, err := deploy.Holds(ctx, b, t)
		if err != nil {
			return err
		}
		if held != "" {
			managed = append(managed, t.File+": already managed by stack "+t.Key()+" (it holds "+held+"); nothing to adopt")
		}
	}
	if len(managed) > 0 {
		return errors.Errorf("refused, nothing adopted:\n  %s\nstatus, diff and up work on these stacks as they are", strings.Join(managed, "\n  "))
	}
	return nil
}
