package deploy_test

import (
	"context"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
)

func TestAStackHoldsItsClusterOnlyOnceDeployed(t *testing.T) {
	ctx := context.Background()
	for _, rel := range []string{"digitaloceankubernetescluster/minimal.yaml", "civokubernetesnodepool/minimal.yaml"} {
		t.Run(rel, func(t *testing.T) {
			// Unprotected, so that the destroy below may delete the cluster.
			text := manifest(t, rel)
			if strings.Contains(rel, "cluster/") {
				text = strings.Replace(text, "\nspec:\n", "\nspec:\n  deletionProtection: false\n", 1)
			}
			tg := target(t, "manifest.yaml", text)
			d, b := deployer()
			if held, err := deploytarget.Holds(ctx, b, tg); err != nil || held != "" {
				t.Fatalf("before any up: %q %v, want nothing held", held, err)
			}
			mustUp(ctx, t, d, tg)
			held, err := deploytarget.Holds(ctx, b, tg)
			if err != nil || held == "" {
				t.Errorf("after up: %q %v, want the cluster or pool it deployed", held, err)
			}
			if o := d.Destroy(ctx, tg, deploy.DestroyOptions{}); o.Status != outcome.Done {
				t.Fatalf("destroy: %s %v", o.Status, o.Err)
			}
			if held, err := deploytarget.Holds(ctx, b, tg); err != nil || held != "" {
				t.Errorf("after destroy: %q %v, want nothing held", held, err)
			}
		})
	}
}
