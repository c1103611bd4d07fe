package deploy_test

import (
	"context"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
)

// Status says an adoption as one: after adopt, whose update only imported what the cloud held,
// Ready reads "the last update, an adoption (an import ...), succeeded", never that the last
// update succeeded as if an up had deployed the manifest; after an up it says the update. An
// adoption that left fields unlike the manifest is not ready: they are pending, as an edit is.
func TestStatusSaysTheLastUpdateWasAnAdoptionWhenItWas(t *testing.T) {
	const poolType = "digitalocean:index/kubernetesNodePool:KubernetesNodePool"
	tests := []struct {
		name string
		// tags is the pool's tags in the cloud: the manifest's (nil) leaves adopt nothing for the
		// next up; others leave spec.tags.
		tags   []any
		up     bool // an up follows the adoption
		status string
		reason outcome.Reason
		ready  string
	}{
		{"an adoption that left nothing", nil, false, "True", "Deployed", "the last update, an adoption (an import of what the cloud held), succeeded"},
		{"an adoption that left changes for the next up", []any{"made-elsewhere"}, false, "False", "ManifestChanged",
			"the adoption took over spec.tags as the cloud had it, unlike the manifest; run up to set them"},
		{"an up after the adoption", []any{"made-elsewhere"}, true, "True", "Deployed", "the last update succeeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			tg := target(t, "pool.yaml", manifest(t, "digitaloceankubernetesnodepool/minimal.yaml"))
			live := planned(t, tg, poolType)
			if tt.tags != nil {
				set(live, "tags", tt.tags)
			}
			d, b := deployer()
			b.Live("pool-1", live)
			if o := d.Adopt(ctx, tg, "pool-1", deploy.AdoptOptions{}); o.Status != outcome.Done {
				t.Fatalf("adopt: %s %q %v", o.Status, o.Reason, o.Err)
			}
			if tt.up {
				mustUp(ctx, t, d, tg)
			}
			st := d.Status(ctx, tg, deploy.StatusOptions{})
			if st.Report == nil || len(st.Report.Conditions) == 0 {
				t.Fatalf("status: %s %v", st.Status, st.Err)
			}
			ready := st.Report.Conditions[0]
			if ready.Status != tt.status || ready.Reason != tt.reason || !strings.HasPrefix(ready.Message, tt.ready) {
				t.Errorf("Ready is %s/%s %q, want %s/%s %q", ready.Status, ready.Reason, ready.Message, tt.status, tt.reason, tt.ready)
			}
			if !tt.up && strings.Contains(ready.Message, "update succeeded") {
				t.Errorf("Ready says an up succeeded after an adoption: %q", ready.Message)
			}
		})
	}
}
