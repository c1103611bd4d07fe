package cost_test

import (
	"context"
	"strings"
	"testing"

	dpv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/internal/fakedo"
	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/pulumi/provider"
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
			"+$0.00/month, not counting x-huge"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.delta.String(); !strings.HasPrefix(got, tt.want) {
				t.Errorf("%q, want it to begin %q", got, tt.want)
			}
		})
	}
}

func TestPricesFromTheSizesAPISayEachDateOnce(t *testing.T) {
	const token = "dop_v1_date-once-token"
	do := fakedo.New(t, token)
	t.Setenv(provider.DigitalOceanTokenEnv, token)
	t.Setenv(provider.DigitalOceanAPIURLEnv, do.URL())
	prices, err := cost.Lookup(context.Background(), cost.DigitalOcean)
	if err != nil {
		t.Fatal(err)
	}
	old := parse(t, &dpv1.DigitalOceanKubernetesNodePoolStackInput{}, doPool)
	scaled := parse(t, &dpv1.DigitalOceanKubernetesNodePoolStackInput{}, doPool, "nodeCount: 2", "nodeCount: 3")
	got := cost.Compare(old, scaled, prices).String()
	// The read date and the table's (the same on the day the table was written) each once.
	if strings.Count(got, prices.Date) != 1 || strings.Count(got, cost.TableDate) != 1 {
		t.Errorf("%s: want each date said once", got)
	}
}
