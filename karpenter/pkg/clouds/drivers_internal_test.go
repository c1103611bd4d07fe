package clouds

import (
	"slices"
	"testing"

	v1 "github.com/clusterplane/clusterplane/karpenter/pkg/apis/v1"
	mainclouds "github.com/clusterplane/clusterplane/pkg/cloud/clouds"
)

// thirdNodeClass is a NodeClass of a cloud the table does not hold until a test adds it.
type thirdNodeClass struct{ v1.CivoNodeClass }

func (*thirdNodeClass) Cloud() string { return "thirdcloud" }

// withThirdCloud adds a fake third cloud to the table for the test's length.
func withThirdCloud(t *testing.T) Driver {
	t.Helper()
	third := Driver{ID: "thirdcloud", Name: "Third", Kind: "ThirdCloudNodeClass",
		NodeClass: func() v1.NodeClass { return &thirdNodeClass{} }, Reserve: ReserveNothing}
	before := drivers
	drivers = append(slices.Clone(drivers), third)
	t.Cleanup(func() { drivers = before })
	return third
}

func TestACloudAddedToTheTableGetsItsOwnKind(t *testing.T) {
	third := withThirdCloud(t)
	nc := &thirdNodeClass{}
	nc.SetName("default")
	kind, err := KindOf(nc)
	if err != nil || kind != third.Kind {
		t.Fatalf("KindOf: %q, %v; want %s", kind, err, third.Kind)
	}
	d, err := ByKind(third.Kind)
	if err != nil || d.ID != third.ID {
		t.Fatalf("ByKind: %+v, %v; want the third cloud", d, err)
	}
	if got := d.NodeClass().Cloud(); got != third.ID {
		t.Errorf("the kind's NodeClass is of cloud %q, want %q", got, third.ID)
	}
	for _, other := range []Driver{digitalOceanDriver, civoDriver} {
		if Mark(kind, "default", "spec") == Mark(other.Kind, "default", "spec") {
			t.Errorf("the third cloud's pools carry %s's mark", other.Kind)
		}
	}
}

// Promise: karpenter-unknown-cloud-is-an-error
func TestACloudOrKindTheTableDoesNotHoldIsAnError(t *testing.T) {
	nc := &thirdNodeClass{}
	nc.SetName("default")
	if kind, err := KindOf(nc); err == nil {
		t.Errorf("KindOf a cloud the table does not hold: %q, want an error", kind)
	}
	// An error, and no other cloud's driver beside it.
	if d, err := ByKind("ThirdCloudNodeClass"); err == nil || d.ID != "" || d.New != nil {
		t.Errorf("ByKind of an unknown kind: %+v, %v; want no driver and an error", d, err)
	}
	if d, err := ByID("thirdcloud"); err == nil || d.ID != "" || d.New != nil {
		t.Errorf("ByID of an unknown cloud: %+v, %v; want no driver and an error", d, err)
	}
}

// The table's clouds are the main module's (pkg/cloud/clouds), under the ids its drivers give
// them, and each NodeClass kind names its own cloud.
func TestTheTablesCloudsAreTheMainModulesUnderTheirIDs(t *testing.T) {
	var ids []string
	for _, id := range mainclouds.IDs() {
		ids = append(ids, string(id))
	}
	seen := map[string]bool{}
	for _, d := range Drivers() {
		t.Run(d.ID, func(t *testing.T) {
			if !slices.Contains(ids, d.ID) {
				t.Errorf("%s is no cloud of the main module's (%v)", d.ID, ids)
			}
			if got := d.NodeClass().Cloud(); got != d.ID {
				t.Errorf("%s's NodeClass names cloud %q", d.Kind, got)
			}
			if got := d.New("http://127.0.0.1:1", "token").Name(); got != d.ID {
				t.Errorf("its Cloud is named %q", got)
			}
			if d.Reserve == 0 || d.ProviderIDPrefix == "" || d.Env.TokenEnv == "" || d.Env.URLEnv == "" || d.NodeClasses == nil {
				t.Errorf("the driver leaves something out: %+v", d)
			}
			if seen[d.Kind] || seen[d.ProviderIDPrefix] {
				t.Errorf("its kind or providerID prefix is another cloud's too")
			}
			seen[d.Kind], seen[d.ProviderIDPrefix] = true, true
		})
	}
}
