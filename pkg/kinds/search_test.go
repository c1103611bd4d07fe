package kinds

import (
	"reflect"
	"testing"

	"github.com/pkg/errors"
)

func TestSearchLookSaysWhatTheCloudHoldsOrWhyItCouldNotAsk(t *testing.T) {
	errNoToken := errors.New("no token")
	search := Search{Cloud: "Cloud", NoToken: errNoToken, Type: "node pool", Name: "workers", In: "cluster c1", Where: "cluster c1"}
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
			got, err := search.Look(func() ([]string, error) { return tt.ids, tt.err })
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
