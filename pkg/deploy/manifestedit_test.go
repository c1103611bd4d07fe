package deploy_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
)

// A manifest edit not yet applied is pending, never drift, whatever it would do to the cloud (an
// update, a replacement the cluster's protection refuses), and clusterplane's own tags are never
// in its values; the same field changed in the cloud too is drift.
// Promise: drift-is-what-the-cloud-changed
// Promise: drift-manifest-edit-never-drift
func TestAManifestEditIsPendingNeverDriftUntilTheCloudChangesTheFieldToo(t *testing.T) {
	for _, tc := range []struct {
		name, from, to, field string
		// prop and cloud are the provider's property and the value the console gives it.
		prop  string
		cloud any
	}{
		{"tags added to a cluster deployed without", "  region: fra1\n", "  region: fra1\n  tags: [billing-x]\n", "spec.tags",
			"tags", []any{"resource-kind:DigitalOceanKubernetesCluster", "resource-name:dev-fra1", "console"}},
		{"a protected cluster's default pool resized", "size: s-2vcpu-4gb", "size: s-4vcpu-8gb", "spec.defaultNodePool.size",
			"nodePool.size", "s-8vcpu-16gb"},
		{"the cluster's version raised", "kubernetesVersion: 1.31.1-do.5", "kubernetesVersion: 1.31.9-do.2", "spec.kubernetesVersion",
			"version", "1.31.4-do.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			d, b := deployer()
			text := manifest(t, "digitaloceankubernetescluster/minimal.yaml")
			deployed := target(t, "cluster.yaml", text)
			mustUp(ctx, t, d, deployed)
			edited := target(t, "cluster.yaml", strings.Replace(text, tc.from, tc.to, 1))

			o := d.Drift(ctx, edited)
			if o.Status != outcome.Done || len(o.Drift) != 0 {
				t.Errorf("drift of the manifest's edit: %s %q %+v; want no drift", o.Status, o.Reason, o.Drift)
			}
			if len(o.Pending) != 1 || o.Pending[0].Field != tc.field || strings.Contains(fmt.Sprint(o.Pending[0]), "resource-") {
				t.Errorf("pending %+v; want %s alone, without clusterplane's own tags", o.Pending, tc.field)
			}
			if strings.Count(o.Reason, "pending") != 1 {
				t.Errorf("drift says %q; want pending said once", o.Reason)
			}
			st := d.Status(ctx, edited, deploy.StatusOptions{Drift: true})
			if c := st.Report.Condition("Drifted"); c.Status != "False" {
				t.Errorf("status --drift: Drifted %s (%s: %s); want False", c.Status, c.Reason, c.Message)
			}

			b.EditCloud(edited.Key(), clusterType, "dev-fra1", tc.prop, tc.cloud)
			o = d.Drift(ctx, edited)
			if o.Status != outcome.Drifted || len(o.Drift) != 1 || o.Drift[0].Field != tc.field || strings.Contains(fmt.Sprint(o.Drift[0]), "resource-") {
				t.Errorf("drift after the cloud changed %s too: %s %q %+v; want it drifted, without clusterplane's own tags", tc.field, o.Status, o.Reason, o.Drift)
			}
			if len(o.Pending) != 1 {
				t.Errorf("pending after the cloud changed it too: %+v; want the manifest's edit still pending", o.Pending)
			}
		})
	}
}
