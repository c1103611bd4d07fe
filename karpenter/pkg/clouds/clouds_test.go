package clouds_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/karpenter/internal/testbed"
	"github.com/clusterplane/clusterplane/karpenter/pkg/clouds"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
)

// posts is how many POSTs the bed's cloud was sent.
func posts(b testbed.Bed) int {
	if b.DO != nil {
		return len(b.DO.Requests(http.MethodPost))
	}
	return len(b.Civo.Requests(http.MethodPost))
}

func inject(b testbed.Bed, f fakecloud.Fault) {
	if b.DO != nil {
		b.DO.Inject(f)
		return
	}
	b.Civo.Inject(f)
}

func TestAPoolCreateIsNeverSentBlindlyAgain(t *testing.T) {
	mark := clouds.Mark("DigitalOceanNodeClass", "default", "spec")
	for _, tc := range []struct {
		name      string
		fault     fakecloud.Fault
		wantErr   bool
		wantPools int
		wantPosts int
	}{
		{"a 503 after the cloud made the pool finds that pool and sends nothing again",
			fakecloud.Fault{Method: http.MethodPost, Status: http.StatusServiceUnavailable, Commit: true}, false, 1, 1},
		{"a 503 before the cloud made the pool sends the create once more",
			fakecloud.Fault{Method: http.MethodPost, Status: http.StatusServiceUnavailable}, false, 1, 2},
		{"a refusal is returned without asking again",
			fakecloud.Fault{Method: http.MethodPost, Status: http.StatusUnprocessableEntity}, true, 0, 1},
	} {
		for _, b := range testbed.Both(t) {
			t.Run(tc.name+" on "+b.Name, func(t *testing.T) {
				if b.DO != nil {
					b.DO.Reset()
				} else {
					b.Civo.Reset()
				}
				f := tc.fault
				f.Path, f.Times = "/v2/kubernetes/clusters/", 1
				inject(b, f)
				p, err := b.Cloud.CreatePool(context.Background(), b.Cluster,
					clouds.PoolSpec{Mark: mark, Size: b.SmallSize(), Count: 2})
				if (err != nil) != tc.wantErr {
					t.Fatalf("got error %v, want one: %v", err, tc.wantErr)
				}
				if err == nil && (p.Mark != mark || p.Count != 2) {
					t.Errorf("got pool %+v, want the marked pool of 2", p)
				}
				got := 0
				for _, pl := range b.Pools(t) {
					if pl.Mark == mark {
						got++
					}
				}
				if got != tc.wantPools {
					t.Errorf("got %d marked pools, want %d", got, tc.wantPools)
				}
				if n := posts(b); n != tc.wantPosts {
					t.Errorf("got %d POSTs, want %d", n, tc.wantPosts)
				}
			})
		}
	}
}

func TestAnAPIThatDoesNotAnswerIsNamedByItsHostAlone(t *testing.T) {
	for _, cloud := range []clouds.Cloud{
		clouds.NewDigitalOcean("http://user:url-secret@127.0.0.1:1/key-in-path", "token-secret"),
		clouds.NewCivo("http://user:url-secret@127.0.0.1:1/key-in-path", "token-secret"),
	} {
		t.Run(cloud.Name(), func(t *testing.T) {
			_, err := cloud.FindCluster(context.Background(), "c1", "", "lon1")
			if err == nil || !strings.Contains(err.Error(), "no answer from 127.0.0.1:1:") {
				t.Fatalf("got %v, want an error naming the host", err)
			}
			for _, secret := range []string{"url-secret", "key-in-path", "token-secret"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("the error quotes %s: %v", secret, err)
				}
			}
		})
	}
}

func TestACivoRegionIsTheSameHoweverItIsSpelt(t *testing.T) {
	b := testbed.Civo(t)
	for _, region := range []string{"lon1", "LON1", "Lon1", ""} {
		t.Run("region "+region, func(t *testing.T) {
			cl, err := b.Cloud.FindCluster(context.Background(), b.Cluster.ID, "", region)
			if err != nil {
				t.Fatal(err)
			}
			if cl.Region != "lon1" {
				t.Errorf("got region %q, want lon1", cl.Region)
			}
		})
	}
}

// Civo's cluster names are unique per region only. A NodeClass that names its cluster without a
// region must not take whichever region Civo lists first: its nodes would be made in another
// team's cluster, and billed there.
func TestACivoClusterNameHeldInTwoRegionsIsFoundOnlyWithItsRegion(t *testing.T) {
	f := fakecivo.New(t, testbed.Token, "") // an account that may use every region
	lon := f.SeedCluster(civogo.KubernetesCluster{Name: "c", NetworkID: f.DefaultNetworkID("lon1")})
	fra := f.SeedCluster(civogo.KubernetesCluster{Name: "c", NetworkID: f.DefaultNetworkID("fra1")})
	cloud := clouds.NewCivo(f.URL(), testbed.Token)
	for _, tc := range []struct {
		name, region, wantID string
		ambiguous            bool
	}{
		{"without a region, the name is ambiguous and both regions are named", "", "", true},
		{"with fra1, the fra1 cluster is found", "fra1", fra, false},
		{"with LON1, the lon1 cluster is found", "LON1", lon, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl, err := cloud.FindCluster(context.Background(), "", "c", tc.region)
			if tc.ambiguous {
				if !errors.Is(err, clouds.ErrClusterAmbiguous) || !strings.Contains(err.Error(), "lon1") || !strings.Contains(err.Error(), "fra1") {
					t.Fatalf("got %+v, %v; want ErrClusterAmbiguous naming lon1 and fra1", cl, err)
				}
				return
			}
			if err != nil || cl.ID != tc.wantID {
				t.Fatalf("got %+v, %v; want cluster %s", cl, err, tc.wantID)
			}
		})
	}
}

// The provider finds its pools by their mark: a mark written any other way than before would
// leave every pool it made earlier to no NodeClass, billed until someone deletes it by hand.
func TestAMarkIsWrittenAsThePoolsInTheCloudCarryIt(t *testing.T) {
	// sha256("clusterplane karpenter nodeclass\x00DigitalOceanNodeClass\x00default")[:12], then
	// sha256("spec")[:12].
	const want = "d338a3dd768d-d4f02eaafd1a"
	if got := clouds.Mark("DigitalOceanNodeClass", "default", "spec"); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if !clouds.IsMark(want) || clouds.IsMark("d338a3dd768d") || clouds.IsMark("D338A3DD768D-D4F02EAAFD1A") {
		t.Error("IsMark takes a mark alone, in lower case")
	}
}

// Civo's pool calls and its other calls go through one client: a pool read answered 503 is asked
// again by the provider's one retry rule, and Requests counts every request Civo was sent.
func TestCivosPoolRequestsShareItsOneClientsRetryRuleAndCount(t *testing.T) {
	for _, tc := range []struct {
		name      string
		failures  int
		wantErr   bool
		wantAsked int // pool reads Civo was sent
	}{
		{"a pool read answered 503 once is asked again and gets through", 1, false, 2},
		{"a pool read answered 503 every time gives up after the rule's three more", 100, true, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := testbed.Civo(t)
			b.Civo.Reset()
			before := b.Cloud.Requests()
			pools := "/v2/kubernetes/clusters/" + b.Cluster.ID + "/pools"
			b.Civo.Inject(fakecloud.Fault{Method: http.MethodGet, Path: pools, Status: http.StatusServiceUnavailable, Times: tc.failures})
			_, err := b.Cloud.Pools(context.Background(), b.Cluster)
			if (err != nil) != tc.wantErr {
				t.Fatalf("got error %v, want one: %v", err, tc.wantErr)
			}
			asked := 0
			for _, r := range b.Civo.Requests(http.MethodGet) {
				if r.Path == pools {
					asked++
				}
			}
			if asked != tc.wantAsked {
				t.Errorf("Civo was sent %d pool reads, want %d", asked, tc.wantAsked)
			}
			if got, sent := b.Cloud.Requests()-before, len(b.Civo.Requests("")); got != sent {
				t.Errorf("the provider counted %d requests, Civo was sent %d", got, sent)
			}
		})
	}
}
