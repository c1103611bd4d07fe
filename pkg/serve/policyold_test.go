package serve_test

import (
	"context"
	"errors"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/pipeline"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/serve"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/body"
)

// A rule that reads old judges a body at request time against what its stack last deployed, as
// the worker's pipeline judges it at deploy time: a change the pipeline would deny is answered
// 422 when sent, not accepted and then refused by the worker.
func TestAPolicyRuleReadingOldJudgesTheSameAtRequestTimeAndAtDeployTime(t *testing.T) {
	p, err := policy.Parse("policy.yaml", []byte(`rules:
  - name: no-shrink
    message: never fewer nodes
    expression: old == null || spec.nodeCount >= old.spec.nodeCount
`))
	if err != nil {
		t.Fatal(err)
	}
	onEachDatabase(t, 1, func(t *testing.T, s *service) {
		_, c := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
		clusterID := c["id"].(string)
		s.waitReady("/api/v1/clusters/" + clusterID)
		_, created := s.call(auth.Editor, "POST", "/api/v1/clusters/"+clusterID+"/nodepools", doPool(clusterID, 3))
		pool := "/api/v1/nodepools/" + created["id"].(string)
		s.waitReady(pool)
		tests := []struct {
			name  string
			nodes int
		}{
			{"a pool shrunk from 3 nodes to 1 is denied at both times", 1},
			{"a pool grown from 3 nodes to 4 is allowed at both times", 4},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				text := doPool(clusterID, tt.nodes)
				deployDenied := deniedAtDeployTime(t, s, clusterID, text, p)
				_, now := s.call(auth.Viewer, "GET", pool, "")
				code, out := s.call(auth.Editor, "PUT", pool, text, "If-Match", now["resource_version"].(string))
				requestDenied := code == 400 && errorCode(out) == "VALIDATION_ERROR"
				if !requestDenied && code != 200 {
					t.Fatalf("PUT: %d %v", code, out)
				}
				if requestDenied != deployDenied {
					t.Errorf("denied at request time %t (%d %v), at deploy time %t: want the same", requestDenied, code, out, deployDenied)
				}
				if code == 200 {
					s.waitReady(pool)
				}
			})
		}
	}, func(o *serve.Options) { o.Policy = p })
}

// deniedAtDeployTime tells whether the pipeline the worker runs denies the pool body text by
// the policy, over the replica's stacks: its manifest built as the worker builds it.
func deniedAtDeployTime(t *testing.T, s *service, clusterID, text string, p *policy.Policy) bool {
	t.Helper()
	ctx := context.Background()
	m, err := body.Read(ctx, registry.Kinds(), mustBody(t, text), true, clusterID, storeOf(t, s.url).Objects())
	if err != nil {
		t.Fatal(err)
	}
	_, err = pipeline.Run(ctx, pipeline.Request{Manifests: []deploytarget.Manifest{m},
		Files: deploytarget.Files{Kinds: registry.Kinds()}, Backend: func() (stackstate.Backend, error) { return s.backend, nil },
		Policy: p, Parallel: 1, Op: pipeline.Status(false).Around(func(pipeline.Call) outcome.Outcome {
			return outcome.Outcome{Status: outcome.Done}
		})})
	var denied *pipeline.PolicyDeniedError
	if err != nil && !errors.As(err, &denied) {
		t.Fatal(err)
	}
	return denied != nil
}
