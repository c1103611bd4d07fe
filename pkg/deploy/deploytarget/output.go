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
//
// Where the backend's storage can be read directly (a file or PostgreSQL backend) the output is
// read from the stack's stored state, with no engine started: a fleet of a hundred stacks then
// costs a hundred file reads, not a hundred Pulumi CLI runs. Elsewhere, and where the stored
// state cannot be read so, the stack is opened and the CLI reads it.
func StackOutput(ctx context.Context, b stackstate.Backend, t Target, name string) (string, error) {
	if b.ReadsRecords() {
		rec, err := b.Records(ctx, t.Project, t.Stack)
		if errors.Is(err, stackstate.ErrNotDeployed) {
			return "", nil
		}
		if err == nil {
			if st, err := rec.StackState(); err == nil {
				v, _ := st.Outputs()[name].Value.(string)
				return v, nil
			}
		}
	}
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
