package registry

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/civo/civogo"
	civoclusterv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	civopoolv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	doclusterv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	dopoolv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	civodriver "github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/digitalocean/godo"
	"google.golang.org/protobuf/proto"
)

const (
	doToken   = "dop_v1_lookup_test_token"
	civoToken = "civo-lookup-test-token"
)

// literal resolves only literal values: a reference reads as a stack without the output.
func literal(_ context.Context, ref *sharedv1.StringValueOrRef, _ string) (string, error) {
	return ref.GetValue(), nil
}

func ids(found kinds.Found) []string {
	var out []string
	for _, l := range found.Live {
		out = append(out, l.ID)
	}
	slices.Sort(out)
	return out
}

func TestEachKindsLookUpFindsWhatTheCloudHoldsUnderItsNameWhereTheManifestPutsItOnEveryPage(t *testing.T) {
	for _, env := range []string{digitalocean.TokenEnv, digitalocean.APIURLEnv, civodriver.TokenEnv, civodriver.APIURLEnv} {
		t.Setenv(env, "")
	}
	do := fakedo.New(t, doToken)
	civo := fakecivo.New(t, civoToken, "")
	// More than a page of others first (DigitalOcean serves 200 a page, Civo 100), then two of the
	// name in the manifest's region and one in another.
	for i := range 210 {
		do.SeedCluster(godo.KubernetesCluster{Name: fmt.Sprintf("other-%d", i), RegionSlug: "fra1"})
	}
	for i := range 105 {
		civo.SeedCluster(civogo.KubernetesCluster{Name: fmt.Sprintf("other-%d", i), NetworkID: civo.DefaultNetworkID("fra1")})
	}
	doA := do.SeedCluster(godo.KubernetesCluster{Name: "prod", RegionSlug: "fra1"})
	doB := do.SeedCluster(godo.KubernetesCluster{Name: "prod", RegionSlug: "fra1",
		NodePools: []*godo.KubernetesNodePool{{Name: "default", Size: "s-2vcpu-4gb", Count: 1}, {Name: "workers", Size: "s-2vcpu-4gb", Count: 1}}})
	do.SeedCluster(godo.KubernetesCluster{Name: "prod", RegionSlug: "ams3"})
	civoA := civo.SeedCluster(civogo.KubernetesCluster{Name: "prod", NetworkID: civo.DefaultNetworkID("fra1")})
	civo.SeedCluster(civogo.KubernetesCluster{Name: "prod", NetworkID: civo.DefaultNetworkID("lon1")})
	civo.Seed(civoA, civogo.KubernetesPool{ID: "workers", Size: "g4s.kube.small", Count: 1})
	workers, _ := do.PoolNamed(doB, "workers")

	doCfg := &digitaloceanv1.DigitalOceanProviderConfig{ApiToken: doToken, ApiUrl: do.URL()}
	civoCfg := &civov1.CivoProviderConfig{ApiToken: civoToken, ApiUrl: civo.URL()}
	value := func(v string) *sharedv1.StringValueOrRef {
		return &sharedv1.StringValueOrRef{LiteralOrRef: &sharedv1.StringValueOrRef_Value{Value: v}}
	}
	tests := []struct {
		kind  string
		input proto.Message
		want  []string
		// unchecked tells that nothing was looked up.
		unchecked bool
	}{
		{"DigitalOceanKubernetesCluster", &doclusterv1.DigitalOceanKubernetesClusterStackInput{ProviderConfig: doCfg,
			Target: &doclusterv1.DigitalOceanKubernetesCluster{Spec: &doclusterv1.DigitalOceanKubernetesClusterSpec{
				ClusterName: "prod", Region: "fra1"}}}, sorted(doA, doB), false},
		{"DigitalOceanKubernetesCluster", &doclusterv1.DigitalOceanKubernetesClusterStackInput{ProviderConfig: doCfg,
			Target: &doclusterv1.DigitalOceanKubernetesCluster{Spec: &doclusterv1.DigitalOceanKubernetesClusterSpec{
				ClusterName: "new", Region: "fra1"}}}, nil, false},
		{"DigitalOceanKubernetesCluster", &doclusterv1.DigitalOceanKubernetesClusterStackInput{
			Target: &doclusterv1.DigitalOceanKubernetesCluster{Spec: &doclusterv1.DigitalOceanKubernetesClusterSpec{
				ClusterName: "prod", Region: "fra1"}}}, nil, true},
		{"DigitalOceanKubernetesNodePool", &dopoolv1.DigitalOceanKubernetesNodePoolStackInput{ProviderConfig: doCfg,
			Target: &dopoolv1.DigitalOceanKubernetesNodePool{Spec: &dopoolv1.DigitalOceanKubernetesNodePoolSpec{
				NodePoolName: "workers", Cluster: value(doB)}}}, []string{workers.ID}, false},
		{"DigitalOceanKubernetesNodePool", &dopoolv1.DigitalOceanKubernetesNodePoolStackInput{ProviderConfig: doCfg,
			Target: &dopoolv1.DigitalOceanKubernetesNodePool{Spec: &dopoolv1.DigitalOceanKubernetesNodePoolSpec{
				NodePoolName: "workers", Cluster: &sharedv1.StringValueOrRef{LiteralOrRef: &sharedv1.StringValueOrRef_ValueFrom{
					ValueFrom: &sharedv1.ValueFromRef{Kind: "DigitalOceanKubernetesCluster", Name: "not-deployed"}}}}}}, nil, true},
		{"CivoKubernetesCluster", &civoclusterv1.CivoKubernetesClusterStackInput{ProviderConfig: civoCfg,
			Target: &civoclusterv1.CivoKubernetesCluster{Spec: &civoclusterv1.CivoKubernetesClusterSpec{
				ClusterName: "prod", Region: "fra1"}}}, []string{civoA}, false},
		{"CivoKubernetesNodePool", &civopoolv1.CivoKubernetesNodePoolStackInput{ProviderConfig: civoCfg,
			Target: &civopoolv1.CivoKubernetesNodePool{Spec: &civopoolv1.CivoKubernetesNodePoolSpec{
				NodePoolName: "workers", Region: "fra1", Cluster: value(civoA)}}}, []string{civoA + ":workers"}, false},
		{"CivoKubernetesNodePool", &civopoolv1.CivoKubernetesNodePoolStackInput{ProviderConfig: civoCfg,
			Target: &civopoolv1.CivoKubernetesNodePool{Spec: &civopoolv1.CivoKubernetesNodePoolSpec{
				NodePoolName: "gpus", Region: "fra1", Cluster: value(civoA)}}}, nil, false},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprintf("%d %s", i, tt.kind), func(t *testing.T) {
			k, ok := Kinds().ByName(tt.kind)
			if !ok {
				t.Fatal("no kind")
			}
			lookup := k.Lookup
			if lookup == nil {
				t.Fatal("the kind's targets have no look-up")
			}
			found, err := lookup(context.Background(), tt.input, literal)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(found); !slices.Equal(got, tt.want) || (found.Unchecked != "") != tt.unchecked {
				t.Errorf("found %v (unchecked %q), want %v (unchecked %t)", got, found.Unchecked, tt.want, tt.unchecked)
			}
		})
	}
}

func sorted(s ...string) []string {
	slices.Sort(s)
	return s
}
