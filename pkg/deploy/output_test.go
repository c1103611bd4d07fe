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

func TestStackOutputReadsTheStacksOutputAndNothingBeforeADeploy(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	target := cluster(t)
	if id, err := deploytarget.StackOutput(ctx, b, target, "cluster_id"); id != "" || err != nil {
		t.Errorf("before any up: %q, %v; want nothing", id, err)
	}
	mustUp(ctx, t, d, target)
	id, err := deploytarget.StackOutput(ctx, b, target, "cluster_id")
	if id == "" || err != nil {
		t.Errorf("after up: %q, %v; want the cluster's id", id, err)
	}
	if none, err := deploytarget.StackOutput(ctx, b, target, "no_such_output"); none != "" || err != nil {
		t.Errorf("an output the stack has not: %q, %v", none, err)
	}
	b.Fail(target.Key(), "outputs", errors.New("the backend is gone"))
	if _, err := deploytarget.StackOutput(ctx, b, target, "cluster_id"); err == nil || !strings.Contains(err.Error(), target.Key()) {
		t.Errorf("a backend that fails: %v, want the error naming the stack", err)
	}
}

// A pool whose cluster stack does not exist yet is not previewed, which is the first preview of
// a new fleet and no failure; its up fails at once naming the stack, before the engine's
// "unknown stack".
func TestAPoolWhoseClusterIsNotDeployedIsNotPreviewedAndItsUpSaysWhichStackToDeploy(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	workers := pool(t, "workers", "platform-prod")
	o := d.Preview(ctx, workers, deploy.PreviewOptions{})
	if o.Status != outcome.Done || !strings.Contains(o.Reason, "not previewed: it reads stack digitaloceankubernetescluster/platform-prod, not deployed yet") {
		t.Errorf("preview: %s %q %v", o.Status, o.Reason, o.Err)
	}
	up := d.Up(ctx, workers, deploy.UpOptions{Yes: true})
	if up.Status != outcome.Failed || up.Err == nil || !strings.Contains(up.Err.Error(), "reads stack digitaloceankubernetescluster/platform-prod, which is not deployed") {
		t.Errorf("up: %s %q %v", up.Status, up.Reason, up.Err)
	}
	if b.Has(workers.Key()) {
		t.Errorf("the pool's stack was made")
	}
	// Once the cluster is deployed, the pool previews as ever.
	if c := d.Up(ctx, target(t, "platform.yaml", clusterText("platform", "prod")), deploy.UpOptions{Yes: true}); c.Status != outcome.Done {
		t.Fatalf("up of the cluster: %s %v", c.Status, c.Err)
	}
	if o := d.Preview(ctx, workers, deploy.PreviewOptions{}); o.Status != outcome.Done || strings.Contains(o.Reason, "not previewed") {
		t.Errorf("preview after the cluster: %s %q %v", o.Status, o.Reason, o.Err)
	}
}
