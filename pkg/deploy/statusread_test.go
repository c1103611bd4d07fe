package deploy_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/render"
)

// A pool the console resized to 4, whose manifest was edited from 2 to 3 and not applied: status
// --drift read the cloud, so its NODES are the cloud's 4, with the record's 2 and the manifest's 3
// beside them; plain status, which reads only the backend, shows the record's 2.
func TestStatusDriftShowsTheNodesItReadBesideTheRecordsAndTheManifests(t *testing.T) {
	const poolType = "digitalocean:index/kubernetesNodePool:KubernetesNodePool"
	for _, tc := range []struct {
		name                             string
		drift                            bool
		nodes, recorded, manifest, table string
	}{
		{"status --drift, which read the cloud", true, "4", "2", "3", "4 (recorded 2, manifest 3)"},
		{"plain status, which read the backend only", false, "2", "", "3", "2 (manifest 3)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			d, b := deployer()
			text := manifest(t, "digitaloceankubernetesnodepool/minimal.yaml")
			p := target(t, "pool.yaml", text)
			mustUp(ctx, t, d, p)
			b.EditCloud(p.Key(), poolType, "dev-fra1-workers", "nodeCount", float64(4))
			edited := target(t, "pool.yaml", strings.Replace(text, "nodeCount: 2", "nodeCount: 3", 1))
			o := d.Status(ctx, edited, deploy.StatusOptions{Drift: tc.drift})
			rows := render.StatusRows([]outcome.Outcome{o}, nil)
			if r := rows[0]; r.Nodes != tc.nodes || r.RecordedNodes != tc.recorded || r.ManifestNodes != tc.manifest {
				t.Errorf("nodes %q, recorded %q, manifest %q; want %q, %q, %q (%s)", r.Nodes, r.RecordedNodes, r.ManifestNodes,
					tc.nodes, tc.recorded, tc.manifest, r.Message)
			}
			var table bytes.Buffer
			render.StatusTable(&table, rows, false, false, time.Now())
			if !strings.Contains(table.String(), tc.table) {
				t.Errorf("the table says\n%s\nwant NODES %q", table.String(), tc.table)
			}
		})
	}
}
