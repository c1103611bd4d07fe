package deploytarget

import (
	"context"

	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/pkg/errors"
)

// StackOutput is the string output name of t's stack, read through b: "" when the stack does
// not exist or has no such output. Commands that ask the cloud about what a stack deployed (the
// cluster_id of `upgrade plan`) read it here, so that they find the resource the stack holds,
// whatever else bears its name.
func StackOutput(ctx context.Context, b stackstate.Backend, t Target, name string) (string, error) {
	exists, err := b.Exists(ctx, t.Project, t.Stack)
	if err != nil || !exists {
		return "", err
	}
	s, err := b.Open(ctx, t.Project, t.Stack, t.Program())
	if errors.Is(err, stackstate.ErrNotDeployed) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer s.Close()
	outputs, err := s.Outputs(ctx)
	if err != nil {
		return "", errors.Wrapf(err, "read the outputs of stack %s", t.Key())
	}
	v, _ := outputs[name].Value.(string)
	return v, nil
}
