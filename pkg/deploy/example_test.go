package deploy_test

import (
	"context"
	"fmt"
	"os"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/pipeline"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// A preview of one manifest through the whole pipeline, as any way in calls it: here on the fake
// backend of the tests; the command opens the Automation API's (pkg/deploy/autostack).
func ExampleRun() {
	// The example reaches no cloud: without a token nothing is looked up before the create.
	for _, env := range []string{digitalocean.TokenEnv, civo.TokenEnv} {
		os.Unsetenv(env)
	}
	backend := deploytest.New()
	outcomes, err := pipeline.Run(context.Background(), pipeline.Request{
		Paths:    []string{"../../examples/digitaloceankubernetescluster/minimal.yaml"},
		Files:    deploytarget.Files{Kinds: registry.Kinds()},
		Backend:  func() (stackstate.Backend, error) { return backend, nil },
		Parallel: 1,
		Op:       pipeline.Preview(deploy.PreviewOptions{}),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range outcomes {
		fmt.Printf("%s: %s\n", o.Target.Key(), o.Status)
	}
	// Output:
	// digitaloceankubernetescluster/dev-fra1: done
}
