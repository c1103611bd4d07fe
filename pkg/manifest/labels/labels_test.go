package labels_test

import (
	"maps"
	"slices"
	"testing"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/labels"
)

func TestStandardDerivesLabelsFromMetadata(t *testing.T) {
	tests := []struct {
		name string
		md   *sharedv1.CloudResourceMetadata
		want map[string]string
	}{
		{
			name: "every metadata field becomes its derived label",
			md:   &sharedv1.CloudResourceMetadata{Name: "platform-fra1", Id: "k8s-0042", Org: "acme", Env: "prod"},
			want: map[string]string{
				labels.ResourceKind: "CivoKubernetesCluster",
				labels.ResourceName: "platform-fra1",
				labels.ResourceID:   "k8s-0042",
				labels.Organization: "acme",
				labels.Environment:  "prod",
			},
		},
		{
			name: "empty id, org and env are left out",
			md:   &sharedv1.CloudResourceMetadata{Name: "dev-fra1"},
			want: map[string]string{
				labels.ResourceKind: "CivoKubernetesCluster",
				labels.ResourceName: "dev-fra1",
			},
		},
		{
			name: "nil metadata still yields the kind",
			md:   nil,
			want: map[string]string{labels.ResourceKind: "CivoKubernetesCluster"},
		},
		{
			name: "user labels are added next to the derived ones",
			md: &sharedv1.CloudResourceMetadata{Name: "dev-fra1", Env: "dev",
				Labels: map[string]string{"team": "platform", "cost-center": "cc-1234"}},
			want: map[string]string{
				labels.ResourceKind: "CivoKubernetesCluster",
				labels.ResourceName: "dev-fra1",
				labels.Environment:  "dev",
				"team":              "platform",
				"cost-center":       "cc-1234",
			},
		},
		{
			name: "user labels win over derived labels with the same key",
			md: &sharedv1.CloudResourceMetadata{Name: "dev-fra1", Env: "dev", Labels: map[string]string{
				labels.Environment:  "development",
				labels.ResourceKind: "cluster",
			}},
			want: map[string]string{
				labels.ResourceKind: "cluster",
				labels.ResourceName: "dev-fra1",
				labels.Environment:  "development",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := labels.Standard("CivoKubernetesCluster", tt.md); !maps.Equal(got, tt.want) {
				t.Errorf("Standard() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestStandardDoesNotModifyTheMetadataLabels(t *testing.T) {
	md := &sharedv1.CloudResourceMetadata{Name: "dev-fra1", Labels: map[string]string{"team": "platform"}}
	labels.Standard("CivoKubernetesCluster", md)
	if want := map[string]string{"team": "platform"}; !maps.Equal(md.Labels, want) {
		t.Errorf("metadata labels became %v, want %v", md.Labels, want)
	}
}

func TestTagsRendersLabelsAsSortedKeyValueTagsFollowedByExtra(t *testing.T) {
	tests := []struct {
		name   string
		labels map[string]string
		extra  []string
		want   []string
	}{
		{
			name:   "labels become key:value tags sorted by text",
			labels: map[string]string{"resource-name": "dev-fra1", "environment": "prod", "organization": "acme"},
			want:   []string{"environment:prod", "organization:acme", "resource-name:dev-fra1"},
		},
		{
			name:   "characters outside letters, digits, colon, dash and underscore become dashes",
			labels: map[string]string{"team": "platform/core", "node.acme.dev/pool": "a b", "owner": "ops@acme"},
			want:   []string{"node-acme-dev-pool:a-b", "owner:ops-acme", "team:platform-core"},
		},
		{
			name:   "colons, dashes and underscores are kept",
			labels: map[string]string{"cost_center": "cc-12:34"},
			want:   []string{"cost_center:cc-12:34"},
		},
		{
			name:   "extra tags come after the label tags in their own order",
			labels: map[string]string{"b": "2", "a": "1"},
			extra:  []string{"zeta", "alpha"},
			want:   []string{"a:1", "b:2", "zeta", "alpha"},
		},
		{
			name:   "an extra tag equal to a label tag appears once, where it first occurs",
			labels: map[string]string{"team": "platform"},
			extra:  []string{"pool-system", "team:platform", "pool-system"},
			want:   []string{"team:platform", "pool-system"},
		},
		{
			name:   "labels that differ only in sanitized characters collapse into one tag",
			labels: map[string]string{"a/b": "c", "a.b": "c"},
			want:   []string{"a-b:c"},
		},
		{
			name: "no labels and no extra give no tags",
			want: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := labels.Tags(tt.labels, tt.extra)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Tags() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTagsOfStandardLabelsAreStableAcrossRuns(t *testing.T) {
	md := &sharedv1.CloudResourceMetadata{Name: "platform-fra1", Id: "k8s-0042", Org: "acme", Env: "prod",
		Labels: map[string]string{"team": "platform", "cost-center": "cc-1234"}}
	first := labels.Tags(labels.Standard("CivoKubernetesCluster", md), []string{"tier-production"})
	// Map iteration order changes from run to run; the tags must not.
	for range 20 {
		if got := labels.Tags(labels.Standard("CivoKubernetesCluster", md), []string{"tier-production"}); !slices.Equal(got, first) {
			t.Fatalf("Tags() = %q, then %q", first, got)
		}
	}
	want := []string{
		"cost-center:cc-1234", "environment:prod", "organization:acme", "resource-id:k8s-0042",
		"resource-kind:CivoKubernetesCluster", "resource-name:platform-fra1", "team:platform", "tier-production",
	}
	if !slices.Equal(first, want) {
		t.Errorf("Tags() = %q, want %q", first, want)
	}
}

func TestACloudResourceIsManagedWhenItCarriesTheResourceKindTag(t *testing.T) {
	tests := []struct {
		name string
		tags []string
		kind string
		want bool
	}{
		{"its kind's tag", []string{"team:a", "resource-kind:digitaloceankubernetescluster"}, "digitaloceankubernetescluster", true},
		{"another kind's tag, asked for a kind", []string{"resource-kind:digitaloceankubernetesnodepool"}, "digitaloceankubernetescluster", false},
		{"any kind's tag, asked for any", []string{"resource-kind:civokubernetescluster"}, "", true},
		{"no such tag", []string{"resource-kindly:x", "k8s"}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := labels.Managed(tt.tags, tt.kind); got != tt.want {
				t.Errorf("Managed(%v, %q) = %v, want %v", tt.tags, tt.kind, got, tt.want)
			}
		})
	}
}
