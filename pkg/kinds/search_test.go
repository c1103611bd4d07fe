package kinds

import (
	"context"
	"reflect"
	"testing"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/pkg/errors"
)

func TestSearchLookSaysWhatTheCloudHoldsOrWhyItCouldNotAsk(t *testing.T) {
	errNoToken := cloudapi.NoTokenError{Cloud: "Cloud", Env: "CLOUD_TOKEN"}
	search := Search{Type: "node pool", Name: "workers", In: "cluster c1", Where: "cluster c1"}
	tests := []struct {
		name    string
		ids     []string
		err     error
		want    Found
		wantErr string
	}{
		{name: "each id the cloud lists is a live resource of the name, where the search says",
			ids: []string{"p1", "p2"}, want: Found{Live: []Live{
				{Type: "node pool", Name: "workers", Where: "cluster c1", ID: "p1"},
				{Type: "node pool", Name: "workers", Where: "cluster c1", ID: "p2"}}}},
		{name: "nothing listed is nothing found", want: Found{}},
		{name: "no token to ask with leaves the look-up unchecked", err: errors.Wrap(errNoToken, "list"),
			want: NoToken("Cloud")},
		{name: "any other error says what was looked for", err: errors.New("503"),
			wantErr: "look for a node pool workers in cluster c1 before creating one: 503"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := search.Look(func() ([]Listed, error) {
				var listed []Listed
				for _, id := range tt.ids {
					listed = append(listed, Listed{ID: id})
				}
				return listed, tt.err
			})
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Look() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Look() = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestLookForPoolSearchesTheResolvedClusterOrLeavesAPoolOfAnUnknownClusterUnchecked(t *testing.T) {
	search := Search{Name: "workers"}
	ref := sharedv1.StringValue("c1")
	tests := []struct {
		name    string
		cluster string
		err     error
		want    Found
		wantErr bool
	}{
		{name: "a known cluster is searched and named where each pool is",
			cluster: "c1", want: Found{Live: []Live{{Type: "node pool", Name: "workers", Where: "cluster c1", ID: "c1:workers"}}}},
		{name: "a cluster whose id is not known yet holds no pool to look for", want: NoClusterYet},
		{name: "a failed read of the cluster's id is returned", err: errors.New("state unreadable"), want: NoClusterYet, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resolve := func(_ context.Context, got *sharedv1.StringValueOrRef, output string) (string, error) {
				if got != ref || output != "cluster_id" {
					t.Errorf("resolve(%v, %q), want the pool's ref and cluster_id", got, output)
				}
				return tt.cluster, tt.err
			}
			got, err := search.LookForPool(context.Background(), resolve, ref, "cluster_id", func(cluster string) ([]Listed, error) {
				return []Listed{{ID: cluster + ":workers"}}, nil
			})
			if (err != nil) != tt.wantErr || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("LookForPool() = %+v, %v; want %+v (error %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
