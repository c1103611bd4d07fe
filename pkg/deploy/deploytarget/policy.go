package deploytarget

import (
	"context"

	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"
)

// LastDeployed is the stack input the target's stack last deployed (the manifest it recorded,
// with the target's provider config), nil when the stack does not exist or recorded none. It
// reads the backend, never the cloud: a policy over changes (pkg/change/policy) compares a manifest
// with it before anything runs.
func LastDeployed(ctx context.Context, b stackstate.Backend, t Target) (proto.Message, error) {
	s, err := b.Open(ctx, t.Project, t.Stack, nil)
	if errors.Is(err, stackstate.ErrNotDeployed) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer s.Close()
	outputs, err := s.Outputs(ctx)
	if err != nil {
		return nil, errors.Wrapf(err, "%s: read the manifest the stack last deployed", t.Key())
	}
	return t.DeployedInput(outputs)
}
