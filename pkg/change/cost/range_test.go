package cost_test

import (
	"context"
	"strings"
	"testing"

	dcv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	dpv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"google.golang.org/protobuf/proto"
)

func TestAChangesRangeReadsFromTheLowerToTheHigherAndNoChangeReadsUnchanged(t *testing.T) {
	tests := []struct {
		name  string
		delta cost.Delta
		want  string
	}{
		{"ends out of order", cost.Delta{Min: 40, Max: -120}, "-$120.00 to +$40.00/month"},
		{"ends crossing zero", cost.Delta{Min: -40, Max: 80}, "-$40.00 to +$80.00/month"},
		{"both up", cost.Delta{Min: 24, Max: 48}, "+$24.00–+$48.00/month"},
		{"nothing changes", cost.Delta{Old: cost.Estimate{Min: 48, Max: 48}, New: cost.Estimate{Min: 48, Max: 48}},
			"unchanged ($48.00 → $48.00/month"},
		// A size with no known price is not counted: the figure cannot say nothing changed.
		{"nothing counted changes, a size unknown", cost.Delta{Old: cost.Estimate{Unknown: []string{"x-huge"}}, New: cost.Estimate{Unknown: []string{"x-huge"}}},
			"not known, not counting x-huge (no known price) (not known → not known; prices"},
		{"a pool of an unpriced size added beside a priced one", cost.Delta{Min: 0, Max: 0, Old: cost.Estimate{Min: 48, Max: 48},
			New: cost.Estimate{Min: 48, Max: 48, Unknown: []string{"x-huge"}}},
			"not known, not counting x-huge (no known price) ($48.00 → $48.00/month; prices"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.delta.String(); !strings.HasPrefix(got, tt.want) {
				t.Errorf("%q, want it to begin %q", got, tt.want)
			}
		})
	}
}

// The sizes API's prices name the API and the day they were read; the HA fee, which the API does
// not list, is cited from the table only where a fee is counted.
func TestPricesFromTheSizesAPICiteTheHAFeeOnlyWhereOneIsCounted(t *testing.T) {
	const token = "dop_v1_date-once-token"
	do := fakedo.New(t, token)
	t.Setenv(digitalocean.TokenEnv, token)
	t.Setenv(digitalocean.APIURLEnv, do.URL())
	prices, err := lookup(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pool := parse(t, &dpv1.DigitalOceanKubernetesNodePoolStackInput{}, doPool)
	scaled := parse(t, &dpv1.DigitalOceanKubernetesNodePoolStackInput{}, doPool, "nodeCount: 2", "nodeCount: 3")
	ha := parse(t, &dcv1.DigitalOceanKubernetesClusterStackInput{}, doCluster)
	noHA := parse(t, &dcv1.DigitalOceanKubernetesClusterStackInput{}, doCluster, "highlyAvailable: true", "highlyAvailable: false")
	fee := "; the HA fee: " + cost.TableSource + " of " + cost.TableDate
	tests := []struct {
		name     string
		old, new proto.Message
		cites    bool
	}{
		{"a pool scaled", pool, scaled, false},
		{"a cluster without HA created", nil, noHA, false},
		{"an HA cluster created", nil, ha, true},
		{"HA turned off", ha, noHA, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cost.Compare(tt.old, tt.new, prices).String()
			if !strings.Contains(got, "prices: DigitalOcean sizes API, "+prices.Date) {
				t.Errorf("%s: want the sizes API and the day it was read", got)
			}
			if strings.Contains(got, fee) != tt.cites || strings.Count(got, "HA fee") > 1 {
				t.Errorf("%s: cites the HA fee %t, want %t", got, strings.Contains(got, fee), tt.cites)
			}
		})
	}
}
