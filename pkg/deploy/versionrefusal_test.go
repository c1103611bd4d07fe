package deploy_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/kubeversion"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"
)

// A version the DigitalOcean module refuses while the engine previews the stack is a refusal, as
// the exit-code table says: preview and up end blocked and exit 3, the refusal's own words in
// the outcome. A user's report had them end failed, exit 1, as if the cloud had broken.
// Promise: upgrade-one-minor-at-a-time
func TestAVersionTheModuleRefusesIsBlockedAndExits3NotFailed(t *testing.T) {
	tests := []struct {
		name string
		// program is what the stack's program fails with once the stack is deployed.
		program error
		status  outcome.Status
		code    int
		says    string
	}{
		{name: "a version older than the one the cluster runs is refused: blocked, exit 3",
			program: &kubeversion.UpgradedPastError{Field: "spec.kubernetesVersion", Manifest: "1.31.1-do.5", Live: "1.32.2-do.0",
				Cloud: "DigitalOcean", Want: "1.32.2-do.0"},
			status: outcome.Blocked, code: exitcode.Blocked, says: "Set kubernetesVersion to 1.32.2-do.0"},
		{name: "a version the cloud cannot upgrade the cluster to in one step is refused, naming the first step: blocked, exit 3",
			program: upgrade.FirstStep("spec.kubernetesVersion", "DigitalOcean", "1.31.1-do.5", "1.33.1-do.0",
				digitalocean.UpgradeOffer(nil, []string{"1.31.1-do.5", "1.31.9-do.2", "1.32.2-do.0", "1.33.1-do.0"})),
			status: outcome.Blocked, code: exitcode.Blocked, says: "Set kubernetesVersion to 1.31.9-do.2 and deploy"},
		{name: "any other failure of the program is a failure: failed, exit 1",
			program: errors.New("read the version cluster prod-fra1 runs: 401 Unable to authenticate you"),
			status:  outcome.Failed, code: exitcode.Invalid, says: "401 Unable to authenticate you"},
	}
	for _, tt := range tests {
		for _, op := range []string{"preview", "up"} {
			t.Run(op+": "+tt.name, func(t *testing.T) {
				ctx := context.Background()
				d, _ := deployer()
				c := cluster(t)
				mustUp(ctx, t, d, c)
				c.Kind.Resources = func(*pulumi.Context, proto.Message) error { return tt.program }
				var o outcome.Outcome
				if op == "preview" {
					o = d.Preview(ctx, c, deploy.PreviewOptions{})
				} else {
					o = d.Up(ctx, c, deploy.UpOptions{Yes: true})
				}
				if o.Status != tt.status || o.Err == nil || !strings.Contains(o.Err.Error(), tt.says) {
					t.Fatalf("%s: %s %v, want %s saying %q", op, o.Status, o.Err, tt.status, tt.says)
				}
				if code := runreport.ExitCode([]outcome.Outcome{o}); code != tt.code {
					t.Errorf("%s exits %d, want %d", op, code, tt.code)
				}
				if tt.status == outcome.Blocked {
					var refused *stackstate.RefusedError
					if !errors.As(o.Err, &refused) || len(refused.Changes) != 1 || refused.Changes[0].Path != "spec.kubernetesVersion" {
						t.Errorf("%s: the refusal %v does not name spec.kubernetesVersion as a refused change", op, o.Err)
					}
				}
			})
		}
	}
}
