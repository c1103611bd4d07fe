package deploy_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy"
)

func TestDriftShowsTheTagsTheCloudHasNotTheInputsPulumiDerivesFromThem(t *testing.T) {
	ctx := context.Background()
	d, b := deployer()
	c := cluster(t)
	mustUp(ctx, t, d, c)
	// A tag added in the console: the refreshed outputs hold all three, the refreshed inputs, as a
	// bridged provider derives them from what it last sent, only some.
	cloud := []any{"resource-kind:DigitalOceanKubernetesCluster", "resource-name:dev-fra1", "hand-edited"}
	b.EditRefreshed(c.Key(), clusterType, "dev-fra1", "tags", []any{"hand-edited", "resource-kind:DigitalOceanKubernetesCluster"}, cloud)
	o := d.Drift(ctx, c)
	if o.Status != deploy.Drifted || len(o.Drift) != 1 || o.Drift[0].Field != "spec.tags" || !reflect.DeepEqual(o.Drift[0].Live, cloud) {
		t.Errorf("drift after a console tag edit: %s %+v, want spec.tags with the cloud's %v", o.Status, o.Drift, cloud)
	}
}

func TestDriftIsSilentOnWhatTheProviderNeverReadsFromTheCloud(t *testing.T) {
	tests := []struct {
		name, prop string
		// cloud is what the refresh read: nil when the provider never sets the property.
		cloud any
		drift string
	}{
		// After an import the state holds nothing for registryIntegration: the provider's Read
		// never sets it, so there is no cloud value to disagree with.
		{"registryIntegration, never read back", "registryIntegration", nil, ""},
		{"autoUpgrade, read back and changed", "autoUpgrade", true, "spec.autoUpgrade"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			d, b := deployer()
			c := cluster(t)
			mustUp(ctx, t, d, c)
			b.EditRefreshed(c.Key(), clusterType, "dev-fra1", tt.prop, tt.cloud, tt.cloud)
			o := d.Drift(ctx, c)
			var got []string
			for _, f := range o.Drift {
				got = append(got, f.Field)
			}
			if want := []string{tt.drift}; tt.drift == "" && len(got) != 0 || tt.drift != "" && !reflect.DeepEqual(got, want) {
				t.Errorf("drift %s %v, want %q", o.Status, got, tt.drift)
			}
		})
	}
}
