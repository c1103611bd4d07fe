package serve_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/pipeline"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/manifest/files"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/body"
)

// A cluster the API creates runs no more engine operations that read the cloud than `clusterplane
// up --yes` of the same manifest on a fresh stack followed by `clusterplane status --drift`: the
// worker's up says yes as --yes does, with no preview of a stack that holds nothing to replace,
// and then compares the stack with the cloud. e2e/serveyes_test.go holds the same on the real
// engine, counting the loopback cloud's requests; this test counts the fake engine's operations.
func TestAClusterCreatedThroughTheAPIRunsNoMoreEngineOperationsThanUpWithYesAndStatus(t *testing.T) {
	onEachDatabase(t, 1, func(t *testing.T, s *service) {
		calls := len(s.backend.Calls())
		_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
		s.waitReady("/api/v1/clusters/" + c["id"].(string))
		viaServe := engineRuns(s.backend.Calls()[calls:])

		manifest, err := body.ClusterManifest(mustBody(t, doCluster))
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "cluster.yaml")
		if err := os.WriteFile(file, manifest, 0o600); err != nil {
			t.Fatal(err)
		}
		kinds, cli := registry.Kinds(), deploytest.New()
		for _, op := range []pipeline.Step{pipeline.Up(deploy.UpOptions{Yes: true}), pipeline.Status(true)} {
			outcomes, err := pipeline.Run(context.Background(), pipeline.Request{Paths: []string{file},
				Files: deploytarget.Files{Reader: files.Reader{Kinds: kinds.Names()}, Kinds: kinds}, Backend: func() (stackstate.Backend, error) { return cli, nil },
				Parallel: 1, StackTimeout: time.Minute, Op: op})
			if err != nil || len(outcomes) != 1 || outcomes[0].Status != outcome.Done {
				t.Fatalf("the CLI's %s: %v %v", op.Operation(), outcomes, err)
			}
		}
		viaUp := engineRuns(cli.Calls())

		for _, op := range []string{"preview", "update", "refresh"} {
			if viaServe[op] > viaUp[op] {
				t.Errorf("the API's create ran %d engine %ss, up --yes and status --drift %d: %v", viaServe[op], op, viaUp[op], s.backend.Calls()[calls:])
			}
		}
	})
}

// engineRuns counts the engine's operations among a fake backend's calls ("update KEY"), by
// operation.
func engineRuns(calls []string) map[string]int {
	n := map[string]int{}
	for _, call := range calls {
		op, _, _ := strings.Cut(call, " ")
		n[op]++
	}
	return n
}
