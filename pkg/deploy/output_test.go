package deploy_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy"
)

func TestStackOutputReadsTheStacksOutputAndNothingBeforeADeploy(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	target := cluster(t)
	if id, err := deploy.StackOutput(ctx, b, target, "cluster_id"); id != "" || err != nil {
		t.Errorf("before any up: %q, %v; want nothing", id, err)
	}
	if o := d.Up(ctx, target, deploy.UpOptions{Yes: true}); o.Status != deploy.Done {
		t.Fatalf("up: %s %v", o.Status, o.Err)
	}
	id, err := deploy.StackOutput(ctx, b, target, "cluster_id")
	if id == "" || err != nil {
		t.Errorf("after up: %q, %v; want the cluster's id", id, err)
	}
	if none, err := deploy.StackOutput(ctx, b, target, "no_such_output"); none != "" || err != nil {
		t.Errorf("an output the stack has not: %q, %v", none, err)
	}
	b.Fail(target.Key(), "outputs", errors.New("the backend is gone"))
	if _, err := deploy.StackOutput(ctx, b, target, "cluster_id"); err == nil || !strings.Contains(err.Error(), target.Key()) {
		t.Errorf("a backend that fails: %v, want the error naming the stack", err)
	}
}
