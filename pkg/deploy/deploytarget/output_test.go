package deploytarget_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// storedOnly is a backend whose stored states are read directly; opening a stack (which starts
// the Pulumi CLI) fails the test.
type storedOnly struct {
	stackstate.Backend
	t       *testing.T
	records map[string]stackstate.Records
}

func (b storedOnly) ReadsRecords() bool { return true }

func (b storedOnly) Records(_ context.Context, project, stack string) (stackstate.Records, error) {
	rec, ok := b.records[project+"/"+stack]
	if !ok {
		return stackstate.Records{}, stackstate.ErrNotDeployed
	}
	return rec, nil
}

func (b storedOnly) Exists(context.Context, string, string) (bool, error) {
	b.t.Fatal("the stack was asked for through the CLI")
	return false, nil
}

func (b storedOnly) Open(context.Context, string, string, pulumi.RunFunc) (stackstate.Stack, error) {
	b.t.Fatal("the stack was opened")
	return nil, nil
}

func TestAStackOutputIsReadFromTheStoredStateWithoutStartingTheEngine(t *testing.T) {
	deployment := apitype.DeploymentV3{Resources: []apitype.ResourceV3{{
		URN: "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev", Type: resource.RootStackType,
		Outputs: map[string]any{"cluster_id": "c-123"},
	}}}
	raw, err := json.Marshal(deployment)
	if err != nil {
		t.Fatal(err)
	}
	b := storedOnly{t: t, records: map[string]stackstate.Records{
		"p/dev": {State: apitype.UntypedDeployment{Version: 3, Deployment: raw}},
	}}
	cases := []struct {
		name, stack, output, want string
	}{
		{name: "an output the stack holds", stack: "dev", output: "cluster_id", want: "c-123"},
		{name: "an output it does not hold", stack: "dev", output: "pool_id", want: ""},
		{name: "a stack never deployed", stack: "prod", output: "cluster_id", want: ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := deploytarget.StackOutput(context.Background(), b, deploytarget.Target{Kind: kinds.Kind{Project: "p"}, Stack: c.stack}, c.output)
			if err != nil || got != c.want {
				t.Errorf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}
