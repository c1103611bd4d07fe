package kinds

import (
	"context"
	"reflect"
	"testing"

	civoclusterv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	dopoolv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"google.golang.org/protobuf/proto"
)

func TestClusterAndPoolLookupsReadTheManifestsNameAndPlaceAndAskOnlyHowTheCloudLists(t *testing.T) {
	cluster := &civoclusterv1.CivoKubernetesClusterStackInput{Target: &civoclusterv1.CivoKubernetesCluster{
		Spec: &civoclusterv1.CivoKubernetesClusterSpec{ClusterName: "prod", Region: "fra1"}}}
	pool := &dopoolv1.DigitalOceanKubernetesNodePoolStackInput{Target: &dopoolv1.DigitalOceanKubernetesNodePool{
		Spec: &dopoolv1.DigitalOceanKubernetesNodePoolSpec{NodePoolName: "workers", Cluster: sharedv1.StringValue("c1")}}}
	var asked []string
	clusterLookup := ClusterLookup(
		func(_ context.Context, in *civoclusterv1.CivoKubernetesClusterStackInput, region, name string) ([]Listed, error) {
			asked = append(asked, "clusters "+name+" in "+region)
			return []Listed{{ID: "k1", Tags: []string{"team:a"}}}, nil
		})
	poolLookup := PoolLookup(
		func(_ context.Context, in *dopoolv1.DigitalOceanKubernetesNodePoolStackInput, cluster, name string) ([]Listed, error) {
			asked = append(asked, "pools "+name+" in "+cluster)
			return []Listed{{ID: "p1"}}, nil
		})
	resolve := func(_ context.Context, ref *sharedv1.StringValueOrRef, output string) (string, error) {
		if output != "cluster_id" {
			t.Errorf("resolve(%v, %q), want the pool's default output cluster_id", ref, output)
		}
		return ref.GetValue(), nil
	}
	tests := []struct {
		name   string
		lookup Lookup
		input  proto.Message
		asked  string
		want   Found
	}{
		{name: "a cluster is looked for by its clusterName in its region", lookup: clusterLookup, input: cluster,
			asked: "clusters prod in fra1", want: Found{Live: []Live{{Type: "cluster", Name: "prod", Where: "region fra1", ID: "k1", Tags: []string{"team:a"}}}}},
		{name: "a pool is looked for by its nodePoolName in the cluster its ref resolves to", lookup: poolLookup, input: pool,
			asked: "pools workers in c1", want: Found{Live: []Live{{Type: "node pool", Name: "workers", Where: "cluster c1", ID: "p1"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked = nil
			got, err := tt.lookup(context.Background(), tt.input, resolve)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("lookup() = %+v, %v; want %+v", got, err, tt.want)
			}
			if len(asked) != 1 || asked[0] != tt.asked {
				t.Errorf("the cloud was asked %q, want %q once", asked, tt.asked)
			}
		})
	}
}

func TestTwoPoolsLookedForAtOnceAreEachLookedForByTheirOwnName(t *testing.T) {
	pool := func(name, cluster string) proto.Message {
		return &dopoolv1.DigitalOceanKubernetesNodePoolStackInput{Target: &dopoolv1.DigitalOceanKubernetesNodePool{
			Spec: &dopoolv1.DigitalOceanKubernetesNodePoolSpec{NodePoolName: name, Cluster: sharedv1.StringValue(cluster)}}}
	}
	lookup := PoolLookup(
		func(_ context.Context, in *dopoolv1.DigitalOceanKubernetesNodePoolStackInput, cluster, name string) ([]Listed, error) {
			return []Listed{{ID: name + "@" + cluster}}, nil
		})
	// The first look-up waits in its cluster's resolve until the second has ended, as two stacks
	// of a fleet run side by side.
	entered, release := make(chan struct{}), make(chan struct{})
	resolve := func(_ context.Context, ref *sharedv1.StringValueOrRef, _ string) (string, error) {
		if ref.GetValue() == "c-a" {
			close(entered)
			<-release
		}
		return ref.GetValue(), nil
	}
	first := make(chan Found, 1)
	go func() {
		found, err := lookup(context.Background(), pool("a", "c-a"), resolve)
		if err != nil {
			t.Error(err)
		}
		first <- found
	}()
	<-entered
	if _, err := lookup(context.Background(), pool("b", "c-b"), resolve); err != nil {
		t.Fatal(err)
	}
	close(release)
	want := Found{Live: []Live{{Type: "node pool", Name: "a", Where: "cluster c-a", ID: "a@c-a"}}}
	if got := <-first; !reflect.DeepEqual(got, want) {
		t.Errorf("the first pool's look-up = %+v, want %+v", got, want)
	}
}
