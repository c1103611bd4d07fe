package deploy_test

import (
	"context"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
)

// A refused adoption says that nothing was adopted and why, each manifest by name, and no more:
// never a closing word on "these stacks", which it did not touch (a manifest whose id another
// stack holds has no stack of its own at all).
func TestARefusedAdoptionSaysNothingWasAdoptedAndNothingOfStacksAsTheyAre(t *testing.T) {
	const poolType = "digitalocean:index/kubernetesNodePool:KubernetesNodePool"
	text := manifest(t, "digitaloceankubernetesnodepool/minimal.yaml")
	tests := []struct {
		name string
		// held readies the backend: the stack that already holds the pool, and the targets and
		// ids adopt is then given.
		held func(ctx context.Context, t *testing.T, d *deploy.Deployer) ([]deploytarget.Target, map[string]string)
		says string
	}{
		{"a manifest whose stack already holds its pool", func(ctx context.Context, t *testing.T, d *deploy.Deployer) ([]deploytarget.Target, map[string]string) {
			tg := target(t, "pool.yaml", text)
			mustUp(ctx, t, d, tg)
			return []deploytarget.Target{tg}, map[string]string{tg.Key(): "pool-1"}
		}, "pool.yaml: already managed by stack "},
		{"a manifest whose id another stack holds", func(ctx context.Context, t *testing.T, d *deploy.Deployer) ([]deploytarget.Target, map[string]string) {
			tg := target(t, "pool.yaml", text)
			if o := d.Adopt(ctx, tg, "pool-1", deploy.AdoptOptions{}); o.Status != outcome.Done {
				t.Fatalf("adopt: %s %q %v", o.Status, o.Reason, o.Err)
			}
			again := target(t, "again.yaml", strings.Replace(text, "\n  name: ", "\n  name: again-", 1))
			return []deploytarget.Target{again}, map[string]string{again.Key(): "pool-1"}
		}, "again.yaml: pool-1 is already managed by stack digitaloceankubernetesnodepool/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d, b := deployer()
			tg := target(t, "pool.yaml", text)
			b.Live("pool-1", planned(t, tg, poolType))
			targets, ids := tt.held(ctx, t, d)
			err := deploy.AlreadyManaged(ctx, b, targets, ids)
			if err == nil {
				t.Fatal("adopt was not refused")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "refused, nothing adopted:\n") || !strings.Contains(msg, tt.says) {
				t.Errorf("the refusal says %q, want it to begin \"refused, nothing adopted\" and say %q", msg, tt.says)
			}
			if strings.Contains(msg, "as they are") || strings.Contains(msg, "these stacks") {
				t.Errorf("the refusal speaks of stacks it did not adopt as if they were:\n%s", msg)
			}
		})
	}
}
