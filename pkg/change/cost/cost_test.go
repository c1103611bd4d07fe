package cost_test

import (
	"context"
	"fmt"
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	cpv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	dcv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	dpv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"google.golang.org/protobuf/proto"
)

const doPool = `apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesNodePool
metadata:
  name: workers
spec:
  nodePoolName: workers
  cluster:
    value: b6a1c3d5-e7f9-4a2b-8c4d-6e8f0a1b2c3d
  size: s-2vcpu-4gb
  nodeCount: 2
`

const civoPool = `apiVersion: civo.clusterplane.dev/v1
kind: CivoKubernetesNodePool
metadata:
  name: workers
spec:
  nodePoolName: workers
  cluster:
    value: 0b9e4d2a-7c1f-4e3b-a5d6-8f9a0b1c2d3e
  region: fra1
  size: g4s.kube.medium
  nodeCount: 2
`

const doCluster = `apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesCluster
metadata:
  name: dev-fra1
spec:
  clusterName: dev-fra1
  region: fra1
  kubernetesVersion: 1.31.1-do.5
  highlyAvailable: true
  defaultNodePool:
    size: s-4vcpu-8gb
    nodeCount: 3
`

// parse reads a manifest into input, with edits (from, to pairs) made first.
func parse[T proto.Message](t *testing.T, input T, text string, edits ...string) T {
	t.Helper()
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(text, edits[i]) {
			t.Fatalf("the manifest has no %q", edits[i])
		}
		text = strings.Replace(text, edits[i], edits[i+1], 1)
	}
	if err := stackinput.Parse([]byte(text), "test.yaml", input); err != nil {
		t.Fatal(err)
	}
	return input
}

// Promise: prices-from-sizes-api-or-table
// Promise: api-monthly-cost-prices
func TestEachManifestIsPricedFromTheTableWithItsDate(t *testing.T) {
	tests := []struct {
		name  string
		input func(t *testing.T) proto.Message
		cloud string
		text  string
	}{
		{"a DigitalOcean pool is its nodes at the size's price",
			func(t *testing.T) proto.Message {
				return parse(t, &dpv1.DigitalOceanKubernetesNodePoolStackInput{}, doPool)
			},
			"digitalocean", "$48.00/month"},
		{"an autoscaled pool is a range from its minimum to its maximum",
			func(t *testing.T) proto.Message {
				return parse(t, &dpv1.DigitalOceanKubernetesNodePoolStackInput{}, doPool, "nodeCount: 2", "nodeCount: 2\n  autoScale: true\n  minNodes: 1\n  maxNodes: 5")
			},
			"digitalocean", "$24.00–$120.00/month"},
		{"an HA DigitalOcean cluster adds the control plane's fee",
			func(t *testing.T) proto.Message {
				return parse(t, &dcv1.DigitalOceanKubernetesClusterStackInput{}, doCluster)
			},
			"digitalocean", "$184.00/month"},
		{"a Civo pool is priced from the table",
			func(t *testing.T) proto.Message { return parse(t, &cpv1.CivoKubernetesNodePoolStackInput{}, civoPool) },
			"civo", "$40.00/month"},
		{"an unknown size says so rather than guessing",
			func(t *testing.T) proto.Message {
				return parse(t, &dpv1.DigitalOceanKubernetesNodePoolStackInput{}, doPool, "s-2vcpu-4gb", "s-2vcpu-4gbb")
			},
			"digitalocean", "not known (unknown size s-2vcpu-4gbb: not priced)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input := tt.input(t)
			if d, ok := cloudlist.OfInput(input); !ok || string(d.ID()) != tt.cloud {
				t.Fatalf("cloud %v, want %q", d, tt.cloud)
			}
			e := cost.Of(input, clouds.Prices(tt.cloud))
			if e.String() != tt.text || e.Source != cost.TableSource || e.Date != cost.TableDate {
				t.Errorf("estimate %q from %s %s, want %q from the table of %s", e, e.Source, e.Date, tt.text, cost.TableDate)
			}
		})
	}
}

// Promise: prices-from-sizes-api-or-table
// Promise: api-monthly-cost-prices
func TestAPoolGoingFromTwoToThreeNodesCostsOneNodeMorePricedByTheSizesAPIWhenATokenIsThere(t *testing.T) {
	old := parse(t, &dpv1.DigitalOceanKubernetesNodePoolStackInput{}, doPool)
	scaled := parse(t, &dpv1.DigitalOceanKubernetesNodePoolStackInput{}, doPool, "nodeCount: 2", "nodeCount: 3")

	t.Setenv(digitalocean.TokenEnv, "")
	t.Setenv(digitalocean.APIURLEnv, "")
	prices, err := lookup(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d := cost.Compare(old, scaled, prices); d.Min != 24 || d.Max != 24 || !strings.Contains(d.String(), cost.TableDate) {
		t.Errorf("without a token: %s, want +$24.00 from the table of %s", d, cost.TableDate)
	}

	const token = "dop_v1_cost-test-token"
	do := fakedo.New(t, token)
	do.Account().SetPrice("s-2vcpu-4gb", 26.5) // not the table's: the API's price must be the one used
	t.Setenv(digitalocean.TokenEnv, token)
	t.Setenv(digitalocean.APIURLEnv, do.URL())
	prices, err = lookup(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	d := cost.Compare(old, scaled, prices)
	if d.Min != 26.5 || !strings.Contains(d.String(), "DigitalOcean sizes API") {
		t.Errorf("with a token: %s, want +$26.50 from the sizes API", d)
	}
	if strings.Contains(d.String(), token) {
		t.Error("the cost names the token")
	}

	t.Setenv(digitalocean.TokenEnv, "dop_v1_a-refused-token")
	if _, err := lookup(context.Background()); err == nil || strings.Contains(err.Error(), "a-refused-token") {
		t.Errorf("a refused token: %v, want an error without the token", err)
	}
}

func TestASizeWithNoKnownPriceNeverReadsAsFree(t *testing.T) {
	const token = "dop_v1_cost-test-token"
	do := fakedo.New(t, token)
	do.Account().SetPrice("gpu-h100x1-80gb", 0) // listed by the API without a price, and not in the table
	t.Setenv(digitalocean.TokenEnv, token)
	t.Setenv(digitalocean.APIURLEnv, do.URL())
	fromAPI, err := lookup(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	old := parse(t, &dpv1.DigitalOceanKubernetesNodePoolStackInput{}, doPool)
	tests := []struct {
		name   string
		prices cost.Prices
		to     string
	}{
		{"a size the API lists without a price and the table does not price", fromAPI, "gpu-h100x1-80gb"},
		{"a size the table does not price", clouds.Prices("digitalocean"), "gpu-unknown-size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scaled := parse(t, &dpv1.DigitalOceanKubernetesNodePoolStackInput{}, doPool, "nodeCount: 2", "nodeCount: 3",
				"size: s-2vcpu-4gb", "size: "+tt.to)
			got := cost.Compare(old, scaled, tt.prices).String()
			if !strings.Contains(got, "not counting "+tt.to+" (no known price)") {
				t.Errorf("%s, want it to say %s is not counted", got, tt.to)
			}
		})
	}
}

func TestASizeTheAPIListsWithoutAPriceIsPricedFromTheTableSayingSo(t *testing.T) {
	const token = "dop_v1_cost-test-token"
	tests := []struct {
		name string
		// listed is the sizes API's monthly price of s-4vcpu-8gb (0: listed without one).
		listed float64
		want   float64
		source string
	}{
		{"a size listed with a price is the API's", 50, 50, ""},
		{"a size listed without a price is the table's, its source said", 0, 48,
			"s-4vcpu-8gb: " + cost.TableSource + " of " + cost.TableDate + " (the sizes API lists no price)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			do := fakedo.New(t, token)
			do.Account().SetPrice("s-4vcpu-8gb", tt.listed)
			t.Setenv(digitalocean.TokenEnv, token)
			t.Setenv(digitalocean.APIURLEnv, do.URL())
			prices, err := lookup(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			old := parse(t, &dpv1.DigitalOceanKubernetesNodePoolStackInput{}, doPool, "size: s-2vcpu-4gb", "size: s-4vcpu-8gb")
			grown := parse(t, &dpv1.DigitalOceanKubernetesNodePoolStackInput{}, doPool, "size: s-2vcpu-4gb", "size: s-4vcpu-8gb",
				"nodeCount: 2", "nodeCount: 3")
			d := cost.Compare(old, grown, prices)
			if d.Min != tt.want || d.Max != tt.want {
				t.Errorf("%s, want +$%.2f", d, tt.want)
			}
			if got := d.String(); tt.source != "" && !strings.Contains(got, tt.source) || tt.source == "" && strings.Contains(got, "s-4vcpu-8gb:") {
				t.Errorf("%s, want the size's source %q", got, tt.source)
			}
		})
	}
}

func TestAFailingSizesAPIIsReadOnceAndFallsBackToTheTableWithAWarningThatNamesNoToken(t *testing.T) {
	const token = "dop_v1_read-once-token"
	requests := 0
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests++
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		// An API that quotes what it was sent: the warning must not carry it on.
		fmt.Fprintf(w, `{"id":"forbidden","message":"%s may not read sizes"}`, token)
	}))
	defer api.Close()
	t.Setenv(digitalocean.TokenEnv, token)
	t.Setenv(digitalocean.APIURLEnv, api.URL)

	for range 3 {
		prices, warning := cloud.ReadPrices(context.Background(), digitalocean.Driver{})
		if prices.Source != cost.TableSource || prices.Date != cost.TableDate {
			t.Errorf("prices from %q of %q, want the table's", prices.Source, prices.Date)
		}
		if !strings.Contains(warning, cost.TableDate) || !strings.Contains(warning, "403") {
			t.Errorf("warning %q, want the API's failure and the table's date", warning)
		}
		if strings.Contains(warning, token) {
			t.Errorf("warning %q names the token", warning)
		}
	}
	if requests != 1 {
		t.Errorf("the sizes API was asked %d times for three reads, want once", requests)
	}
}

// A cloud the table has no prices of must not be priced with another cloud's table: its sizes
// are unknown, and asking for its prices is an error naming it.
func TestACloudWithoutAPriceTableIsPricedWithNoOtherCloudsTable(t *testing.T) {
	p := clouds.Prices("othercloud")
	if len(p.Sizes) != 0 || p.HAFee != 0 {
		t.Errorf("Prices(othercloud) prices %d sizes (HA fee %v), want none", len(p.Sizes), p.HAFee)
	}
	if !strings.Contains(p.Source, `"othercloud"`) {
		t.Errorf("Prices(othercloud).Source = %q, want it to name the cloud", p.Source)
	}
	if _, err := clouds.Get("othercloud"); err == nil || !strings.Contains(err.Error(), `"othercloud"`) {
		t.Errorf("Get(othercloud) = %v, want an error naming the cloud", err)
	}
}

// lookup is DigitalOcean's prices as a review reads them (cloud.ReadPrices, without its cache and
// its fallback): the sizes API's when the environment's token reads them, else the table; an
// error when the API fails.
func lookup(ctx context.Context) (cost.Prices, error) {
	d := digitalocean.Driver{}
	token := os.Getenv(d.Env().TokenEnv)
	if token == "" {
		return d.Prices(), nil
	}
	p, _, err := d.LivePrices(ctx, os.Getenv(d.Env().URLEnv), token)
	return p, err
}
