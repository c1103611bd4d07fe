package deploy_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
)

// A pool's program reads its cluster's stack: every operation that opens the pool's stack asks
// it to keep its secrets with the cluster's (Stack.ShareSecretsWith), so the engine opens one key
// for both. A cluster that reads no stack is not asked.
func TestEveryOperationOnAPoolKeepsItsSecretsWithItsClustersStack(t *testing.T) {
	ctx := context.Background()
	ops := map[string]func(d *deploy.Deployer, t deploytarget.Target) outcome.Outcome{
		"preview": func(d *deploy.Deployer, t deploytarget.Target) outcome.Outcome {
			return d.Preview(ctx, t, deploy.PreviewOptions{})
		},
		"up": func(d *deploy.Deployer, t deploytarget.Target) outcome.Outcome {
			return d.Up(ctx, t, deploy.UpOptions{Yes: true})
		},
		"refresh": func(d *deploy.Deployer, t deploytarget.Target) outcome.Outcome {
			return d.Refresh(ctx, t, deploy.RefreshOptions{})
		},
		"drift": func(d *deploy.Deployer, t deploytarget.Target) outcome.Outcome { return d.Drift(ctx, t) },
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			d, b := deployer()
			c, p := namedCluster(t, "platform", "prod", ""), pool(t, "batch", "platform-prod")
			mustUp(ctx, t, d, c)
			if name != "preview" && name != "up" {
				mustUp(ctx, t, d, p)
			}
			if o := op(d, p); o.Status == outcome.Failed {
				t.Fatalf("%s of the pool: %v", name, o.Err)
			}
			if got := b.SharesSecretsWith(p.Key()); got != c.Key() {
				t.Errorf("%s of the pool keeps its secrets with %q, want its cluster's stack %q", name, got, c.Key())
			}
			if got := b.SharesSecretsWith(c.Key()); got != "" {
				t.Errorf("the cluster, which reads no stack, keeps its secrets with %q", got)
			}
		})
	}
}

// Keeping the secrets with the cluster's stack failing (its state unreadable) fails the
// operation before the engine runs, and leaves no stack the operation made.
func TestAPoolWhoseSecretsCannotBeKeptWithItsClustersIsNotDeployed(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	c, p := namedCluster(t, "platform", "prod", ""), pool(t, "batch", "platform-prod")
	mustUp(ctx, t, d, c)
	b.Fail(p.Key(), "share", errors.New("read the state of digitaloceankubernetescluster/platform-prod: unexpected EOF"))
	o := d.Up(ctx, p, deploy.UpOptions{Yes: true})
	if o.Status != outcome.Failed || o.Err == nil || !strings.Contains(o.Err.Error(), "read the state of digitaloceankubernetescluster/platform-prod") {
		t.Errorf("up = %s %v, want failed naming the cluster's state", o.Status, o.Err)
	}
	if b.Has(p.Key()) {
		t.Errorf("the pool's stack was left behind")
	}
	if n := calls(b, "update"); n != 1 {
		t.Errorf("%d updates, want the cluster's only", n)
	}
}
