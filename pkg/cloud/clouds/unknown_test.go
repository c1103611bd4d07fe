package clouds_test

import (
	"context"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
)

// A cloud no driver knows is an error naming it wherever pkg/change's values are asked for (its
// prices, its catalogue, its driver), never another cloud's table or API: a third cloud's
// manifest once was priced with Civo's table, and read as Civo by the upgrade plan.
// Promise: unknown-cloud-is-an-error-never-another-cloud
func TestACloudNoDriverKnowsIsAnErrorNamingItNeverAnotherCloudsPath(t *testing.T) {
	tests := []struct {
		name string
		ask  func() error
	}{
		{"its driver", func() error {
			_, err := clouds.Get("othercloud")
			return err
		}},
		{"its prices, which price nothing", func() error {
			p := clouds.Prices("othercloud")
			if len(p.Sizes) != 0 || p.HAFee != 0 || len(p.Unpriced) != 0 {
				t.Errorf("Prices(othercloud) prices %d sizes (HA fee %v), want none", len(p.Sizes), p.HAFee)
			}
			return errorOf(p.Source)
		}},
		{"its catalogue, read from no API", func() error {
			_, err := clouds.Offered(context.Background(), "othercloud", "http://127.0.0.1:1", "token")
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.ask(); err == nil || !strings.Contains(err.Error(), `"othercloud"`) {
				t.Errorf("got %v, want an error naming the cloud", err)
			}
		})
	}
}

// errorOf is text as an error, nil when there is none.
func errorOf(text string) error {
	if text == "" {
		return nil
	}
	return stringError(text)
}

type stringError string

func (e stringError) Error() string { return string(e) }
