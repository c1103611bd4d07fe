package deploy_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/destroyguard"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/pipeline"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// A destroy of a protected cluster and its pool is refused whole: the pool, which nothing
// refuses, is not deleted either, and each stack says why it was not destroyed.
// Promise: destroy-refused-deletes-nothing
// Promise: destroy-refuses-protected-cluster
func TestADestroyThatRefusesOneStackDeletesNothingAndNamesEveryRefusal(t *testing.T) {
	protected := strings.Replace(clusterText("prod", "prod"), "deletionProtection: false", "deletionProtection: true", 1)
	for _, tc := range []struct {
		name  string
		files map[string]string
	}{
		{"a protected cluster and its pool", map[string]string{"cluster.yaml": protected, "pool.yaml": poolText("workers", "prod", "prod")}},
		{"a protected cluster and another cluster", map[string]string{"cluster.yaml": protected, "other.yaml": clusterText("other", "prod")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := writeFiles(t, tc.files)
			b := deploytest.New()
			run := func(op pipeline.Step, guard destroyguard.Guard) []outcome.Outcome {
				t.Helper()
				outcomes, err := pipeline.Run(ctx, pipeline.Request{Paths: []string{dir}, Files: reading(t, "", false),
					Backend: func() (stackstate.Backend, error) { return b, nil }, Parallel: 2, StackTimeout: time.Minute,
					Op: op, Guard: guard, Whole: guard != nil})
				if err != nil {
					t.Fatal(err)
				}
				return outcomes
			}
			held := map[string][]string{}
			for _, o := range run(pipeline.Up(deploy.UpOptions{Yes: true}), nil) {
				if o.Status != outcome.Done {
					t.Fatalf("up of %s: %s %v", o.Target.Key(), o.Status, o.Err)
				}
				held[o.Target.Key()] = b.Resources(o.Target.Key())
			}
			outcomes := run(pipeline.Destroy(deploy.DestroyOptions{}), destroyguard.New(nil))
			if n := calls(b, "destroy"); n != 0 {
				t.Errorf("the engine ran %d destroys; want none: %v", n, b.Calls())
			}
			for key, resources := range held {
				if got := b.Resources(key); len(got) != len(resources) {
					t.Errorf("stack %s holds %v after the refused destroy; want %v", key, got, resources)
				}
			}
			for _, o := range outcomes {
				var protectedErr *stackstate.ProtectedError
				var heldErr *destroyguard.HeldError
				switch {
				case o.Status != outcome.Blocked:
					t.Errorf("%s: %s; want blocked", o.Target.Key(), o.Status)
				case strings.Contains(o.Target.Key(), "prod-prod") && !errors.As(o.Err, &protectedErr):
					t.Errorf("%s: %v; want the protection named", o.Target.Key(), o.Err)
				case !strings.Contains(o.Target.Key(), "prod-prod") && (!errors.As(o.Err, &heldErr) || !strings.Contains(o.Err.Error(), "prod-prod")):
					t.Errorf("%s: %v; want not destroyed, naming the refused stack", o.Target.Key(), o.Err)
				}
			}
		})
	}
}

// A protected cluster that its pool still references is refused for both, each said: mending one
// would only meet the other.
// Promise: destroy-refused-deletes-nothing
func TestADestroyNamesEveryRefusalOfAStack(t *testing.T) {
	ctx := context.Background()
	protected := strings.Replace(clusterText("prod", "prod"), "deletionProtection: false", "deletionProtection: true", 1)
	dir := writeFiles(t, map[string]string{"cluster.yaml": protected, "pool.yaml": poolText("workers", "prod", "prod")})
	b := deploytest.New()
	files := reading(t, "", false)
	request := func(paths []string, op pipeline.Step, guard destroyguard.Guard) pipeline.Request {
		return pipeline.Request{Paths: paths, Files: files, Backend: func() (stackstate.Backend, error) { return b, nil },
			Parallel: 2, StackTimeout: time.Minute, Op: op, Guard: guard, Whole: guard != nil}
	}
	if _, err := pipeline.Run(ctx, request([]string{dir}, pipeline.Up(deploy.UpOptions{Yes: true}), nil)); err != nil {
		t.Fatal(err)
	}
	cluster := []string{filepath.Join(dir, "cluster.yaml")}
	referenced := func(ctx context.Context, b stackstate.Backend, targets []deploytarget.Target) (map[string]error, error) {
		return files.DestroyGuard(ctx, b, cluster, targets)
	}
	outcomes, err := pipeline.Run(ctx, request(cluster, pipeline.Destroy(deploy.DestroyOptions{}), destroyguard.New(referenced)))
	if err != nil {
		t.Fatal(err)
	}
	var protectedErr *stackstate.ProtectedError
	var referencedErr *stackstate.ReferencedError
	if len(outcomes) != 1 || outcomes[0].Status != outcome.Blocked || !errors.As(outcomes[0].Err, &protectedErr) || !errors.As(outcomes[0].Err, &referencedErr) {
		t.Errorf("destroy of a protected cluster its pool references: %+v; want blocked for both", outcomes)
	}
}
