package fielddrift

import (
	"reflect"
	"testing"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// The tags clusterplane derives from a manifest's metadata are never shown as the user's: not
// beside the user's tags the next up adds to an adopted cluster, not in a drift where both sides
// hold them, and a tags value held as one string is the list the manifest writes. Where they are
// all the next up adds, they are the change pending, as preview says it.
func TestClusterplanesOwnTagsAreNeverShownAsTheUsers(t *testing.T) {
	target := deploytarget.Target{Kind: kinds.Kind{Name: "DigitalOceanKubernetesCluster"},
		Input: &v1.DigitalOceanKubernetesClusterStackInput{Target: &v1.DigitalOceanKubernetesCluster{
			Metadata: &sharedv1.CloudResourceMetadata{Name: "dev"}}}}
	own := []any{"resource-kind:DigitalOceanKubernetesCluster", "resource-name:dev"}
	for _, tc := range []struct {
		name    string
		pending []outcome.FieldDrift
		want    []outcome.FieldDrift
	}{
		{"an adopted cluster that up only gives clusterplane's tags has those tags pending",
			[]outcome.FieldDrift{{Field: "spec.tags", Live: []any{}, Manifest: own}},
			[]outcome.FieldDrift{{Field: "spec.tags", Live: []any{}, Manifest: own}}},
		{"an adopted cluster's own tag is pending without clusterplane's",
			[]outcome.FieldDrift{{Field: "spec.tags", Live: []any{"team:a"}, Manifest: append([]any{"team:a", "billing-x"}, own...)}},
			[]outcome.FieldDrift{{Field: "spec.tags", Live: []any{"team:a"}, Manifest: []any{"team:a", "billing-x"}}}},
		{"tags held as one string are a list",
			[]outcome.FieldDrift{{Field: "spec.tags", Live: "team:a", Manifest: "team:a billing-x resource-name:dev"}},
			[]outcome.FieldDrift{{Field: "spec.tags", Live: []any{"team:a"}, Manifest: []any{"team:a", "billing-x"}}}},
		{"another field is left as it is",
			[]outcome.FieldDrift{{Field: "spec.nodeCount", Live: float64(2), Manifest: float64(3)}},
			[]outcome.FieldDrift{{Field: "spec.nodeCount", Live: float64(2), Manifest: float64(3)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ownTagsOut(target, tc.pending); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v\nwant %#v", got, tc.want)
			}
		})
	}
	// A derived tag removed in the console is a drift of clusterplane's own tag: it stays shown.
	removed := withoutOwnTags(target, outcome.FieldDrift{Field: "spec.tags", Live: own[:1], Manifest: own}, false)
	if !reflect.DeepEqual(removed.Manifest, []any{"resource-name:dev"}) || !reflect.DeepEqual(removed.Live, []any{}) {
		t.Errorf("a derived tag removed in the cloud: %#v; want the missing tag shown", removed)
	}
}

func TestATagsFieldThatOnlyGainsTheStacksMarkIsNoChangeOfTheClouds(t *testing.T) {
	mark := "clusterplane-stack:0123456789ab-ba9876543210"
	other := "clusterplane-stack:aaaaaaaaaaaa-bbbbbbbbbbbb"
	tests := []struct {
		name           string
		field          string
		live, manifest any
		want           bool
	}{
		{"the manifest's tags are the cloud's and the mark", "spec.tags", []any{"team:a"}, []any{"team:a", mark}, true},
		{"in another order", "spec.tags", []any{"team:b", "team:a"}, []any{"team:a", "team:b", mark}, true},
		{"a Civo cluster's tags, one string", "spec.tags", "team:a", "team:a " + mark, true},
		{"the default pool's tags too", "spec.defaultNodePool.tags", []any{}, []any{mark}, true},
		{"a tag the console added besides is the cloud's change", "spec.tags", []any{"team:a", "edited"}, []any{"team:a", mark}, false},
		{"a mark the cloud has already (another stack's) is no first mark", "spec.tags", []any{"team:a", other}, []any{"team:a", mark}, false},
		{"a field other than tags", "spec.labels", []any{"team:a"}, []any{"team:a", mark}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := outcome.FieldDrift{Field: tt.field, Live: tt.live, Manifest: tt.manifest}
			if got := addsOnlyMark(f); got != tt.want {
				t.Errorf("addsOnlyMark(%+v) = %v, want %v", f, got, tt.want)
			}
		})
	}
}
