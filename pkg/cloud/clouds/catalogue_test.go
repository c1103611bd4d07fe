package clouds_test

import (
	"context"
	"slices"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

func TestCatalogueReadsEachCloudsVersionsAndRegionsWithCivosDistributionsAndDeprecations(t *testing.T) {
	ctx := context.Background()
	do := fakedo.New(t, "dop_v1_catalogue")
	cat, err := (digitalocean.Driver{}).Catalogue(ctx, do.URL(), "dop_v1_catalogue")
	if err != nil {
		t.Fatal(err)
	}
	var versions []string
	for _, v := range cat.Versions {
		versions = append(versions, v.Version)
	}
	slices.Sort(versions)
	want := slices.Sorted(slices.Values(fakedo.DefaultVersions))
	if !slices.Equal(versions, want) || !slices.Equal(cat.Sizes, fakedo.DefaultSizes) {
		t.Errorf("DigitalOcean's catalogue %v and %v, want %v and %v", versions, cat.Sizes, want, fakedo.DefaultSizes)
	}
	if !slices.Equal(cat.Regions, fakedo.DefaultRegions) {
		t.Errorf("DigitalOcean's regions %v, want %v", cat.Regions, fakedo.DefaultRegions)
	}
	if n := len(do.Requests("")); n != 1 {
		t.Errorf("%d requests, want the options call only", n)
	}

	fakeCivo := fakecivo.New(t, "civo-catalogue", "fra1")
	cat, err = (civo.Driver{}).Catalogue(ctx, fakeCivo.URL(), "civo-catalogue")
	if err != nil {
		t.Fatal(err)
	}
	if cat.Sizes != nil {
		t.Errorf("Civo's versions call lists sizes %v, want none", cat.Sizes)
	}
	found := map[string]cost.CatalogueVersion{}
	for _, v := range cat.Versions {
		found[v.Version] = v
	}
	for version, want := range map[string]cost.CatalogueVersion{
		"1.27.1-k3s1":  {Version: "1.27.1-k3s1", Distribution: "k3s", Deprecated: true},
		"1.30.5-k3s1":  {Version: "1.30.5-k3s1", Distribution: "k3s"},
		"talos-v1.7.6": {Version: "talos-v1.7.6", Distribution: "talos"},
	} {
		if found[version] != want {
			t.Errorf("Civo's %s is %+v, want %+v", version, found[version], want)
		}
	}
	var regions []string
	for _, r := range fakecivo.DefaultRegions {
		regions = append(regions, r.Code)
	}
	if !slices.Equal(cat.Regions, regions) {
		t.Errorf("Civo's regions %v, want %v", cat.Regions, regions)
	}
	// Civo's versions call has no regions: its regions call is the one more.
	if n := len(fakeCivo.Requests("")); n != 2 {
		t.Errorf("%d requests to Civo, want the versions and the regions calls only", n)
	}
}
