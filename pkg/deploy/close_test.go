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

// Every operation closes the stacks it opens, whether it succeeds, fails or is cancelled: a stack
// left open keeps its workspace folder, with the stack's encryption salt, on disk.
func TestEveryOperationClosesTheStacksItOpensHoweverItEnds(t *testing.T) {
	ops := map[string]func(context.Context, *deploy.Deployer, deploytarget.Target) outcome.Outcome{
		"preview": func(ctx context.Context, d *deploy.Deployer, c deploytarget.Target) outcome.Outcome {
			return d.Preview(ctx, c, deploy.PreviewOptions{})
		},
		"up": func(ctx context.Context, d *deploy.Deployer, c deploytarget.Target) outcome.Outcome {
			return d.Up(ctx, c, deploy.UpOptions{Yes: true})
		},
		"up unconfirmed": func(ctx context.Context, d *deploy.Deployer, c deploytarget.Target) outcome.Outcome {
			return d.Up(ctx, c, deploy.UpOptions{})
		},
		"refresh": func(ctx context.Context, d *deploy.Deployer, c deploytarget.Target) outcome.Outcome {
			return d.Refresh(ctx, c, deploy.RefreshOptions{ImportPendingCreates: []string{"cloud-id"}})
		},
		"drift": func(ctx context.Context, d *deploy.Deployer, c deploytarget.Target) outcome.Outcome {
			return d.Drift(ctx, c)
		},
		"status": func(ctx context.Context, d *deploy.Deployer, c deploytarget.Target) outcome.Outcome {
			return d.Status(ctx, c, deploy.StatusOptions{Drift: true})
		},
		"kubeconfig": func(ctx context.Context, d *deploy.Deployer, c deploytarget.Target) outcome.Outcome {
			return d.Kubeconfig(ctx, c)
		},
		"adopt": func(ctx context.Context, d *deploy.Deployer, c deploytarget.Target) outcome.Outcome {
			return d.Adopt(ctx, c, "cluster-1", deploy.AdoptOptions{})
		},
		"destroy": func(ctx context.Context, d *deploy.Deployer, c deploytarget.Target) outcome.Outcome {
			return d.Destroy(ctx, c, deploy.DestroyOptions{Remove: true})
		},
	}
	// How the operation ends: on a deployed stack or a new one, with an engine call failing, or
	// with the context cancelled.
	endings := []struct {
		name     string
		deployed bool
		fail     string
		cancel   bool
	}{
		{name: "on a deployed stack", deployed: true},
		{name: "on a new stack"},
		{name: "when the preview fails", deployed: true, fail: "preview"},
		{name: "when the update fails", deployed: true, fail: "update"},
		{name: "when reading the state fails", deployed: true, fail: "export"},
		{name: "when reading the history fails", deployed: true, fail: "history"},
		{name: "when reading the outputs fails", deployed: true, fail: "outputs"},
		{name: "when the refresh fails", deployed: true, fail: "refresh"},
		{name: "when the destroy fails", deployed: true, fail: "destroy"},
		{name: "when cancelled", deployed: true, cancel: true},
	}
	for name, op := range ops {
		for _, end := range endings {
			t.Run(name+" "+end.name, func(t *testing.T) {
				d, b := deployer()
				c := cluster(t)
				b.Live("cluster-1", map[string]any{"name": "dev-fra1"})
				if end.deployed {
					if o := d.Up(context.Background(), c, deploy.UpOptions{Yes: true}); o.Status != outcome.Done {
						t.Fatalf("up: %s %v", o.Status, o.Err)
					}
				}
				if end.fail != "" {
					b.Fail(c.Key(), end.fail, errors.New("the engine failed"))
				}
				ctx, cancel := context.WithCancel(context.Background())
				if end.cancel {
					cancel()
				}
				defer cancel()
				o := op(ctx, d, c)
				if o.Err != nil && strings.Contains(o.Err.Error(), "after it was closed") {
					t.Errorf("%s used a stack it had closed: %v", name, o.Err)
				}
				if open := b.Unclosed(); len(open) > 0 {
					t.Errorf("%s (%s %v) left %d stacks open: %v", name, o.Status, o.Err, len(open), open)
				}
			})
		}
	}
}
