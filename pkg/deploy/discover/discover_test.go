package discover_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/civo/civogo"
	civoclusterv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	civopoolv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	doclusterv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	dopoolv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/internal/seed"
	"github.com/clusterplane/clusterplane/pkg/deploy/discover"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"google.golang.org/protobuf/proto"
)

const (
	doToken   = "dop_v1_discover-test-token-do"
	civoToken = "civo-discover-test-token"
)

// seededDO is a DigitalOcean account with clusters made by doctl and the console: several
// pools, an auto-upgrading cluster, an autoscaled pool, a cluster in a second region.
func seededDO(t *testing.T) *fakedo.DO {
	t.Helper()
	do := fakedo.New(t, doToken)
	s := seed.Client{URL: do.URL(), Token: doToken}
	for _, c := range []seed.Cluster{
		{Tool: fakedo.Doctl, Name: "web", Region: "fra1", AutoUpgrade: true, Tags: []string{"team-web"}, Pools: []seed.Pool{{},
			{Name: "batch", Size: "s-2vcpu-4gb", AutoScale: true, Min: 1, Max: 4, Labels: map[string]string{"workload": "batch"},
				Taints: []seed.Taint{{Key: "batch", Value: "yes", Effect: "NoSchedule"}}, Tags: []string{"pool-batch"}}}},
		{Tool: seed.Console, Name: "shop", Region: "ams3", Pools: []seed.Pool{{Size: "s-2vcpu-4gb", Count: 2}, {Name: "apps", Count: 2}}},
	} {
		if _, _, err := fakedo.Seed(context.Background(), s, c); err != nil {
			t.Fatal(err)
		}
	}
	return do
}

func seededCivo(t *testing.T) *fakecivo.Civo {
	t.Helper()
	civo := fakecivo.New(t, civoToken, "")
	s := seed.Client{URL: civo.URL(), Token: civoToken}
	for _, c := range []seed.Cluster{
		{Name: "api", Region: "fra1", Tags: []string{"team-api"}, Pools: []seed.Pool{{},
			{Name: "workers", Size: "g4s.kube.large", Count: 2, Labels: map[string]string{"workload": "apps"}}}},
		{Name: "edge", Region: "lon1"},
	} {
		if _, _, err := fakecivo.Seed(context.Background(), s, c); err != nil {
			t.Fatal(err)
		}
	}
	return civo
}

// stackInput is the stack-input message a written file of kind parses into.
func stackInput(kind string) proto.Message {
	switch kind {
	case "DigitalOceanKubernetesCluster":
		return &doclusterv1.DigitalOceanKubernetesClusterStackInput{}
	case "DigitalOceanKubernetesNodePool":
		return &dopoolv1.DigitalOceanKubernetesNodePoolStackInput{}
	case "CivoKubernetesCluster":
		return &civoclusterv1.CivoKubernetesClusterStackInput{}
	case "CivoKubernetesNodePool":
		return &civopoolv1.CivoKubernetesNodePoolStackInput{}
	}
	return nil
}

// Promise: discover-writes-same-bytes
func TestTheSeededAccountsAreWrittenTheSameTwiceValidAndWithoutSecrets(t *testing.T) {
	do, civo := seededDO(t), seededCivo(t)
	for _, tc := range []struct {
		opts           discover.Options
		token          string
		clusters, pool int
		files          []string
	}{
		{opts: discover.Options{Kinds: registry.Kinds(), Cloud: "digitalocean", Token: doToken, APIURL: do.URL()}, token: doToken, clusters: 2, pool: 2,
			files: []string{"shop.yaml", "web.yaml", "shop-apps.yaml", "web-batch.yaml"}},
		{opts: discover.Options{Kinds: registry.Kinds(), Cloud: "civo", Token: civoToken, APIURL: civo.URL()}, token: civoToken, clusters: 2, pool: 1,
			files: []string{"api.yaml", "edge.yaml", "api-workers.yaml"}},
	} {
		t.Run(tc.opts.Cloud, func(t *testing.T) {
			first, err := discover.Discover(context.Background(), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			second, err := discover.Discover(context.Background(), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if first.Clusters != tc.clusters || first.Pools != tc.pool {
				t.Errorf("%d clusters and %d pools, want %d and %d", first.Clusters, first.Pools, tc.clusters, tc.pool)
			}
			var names []string
			for i, f := range first.Files {
				names = append(names, f.Name)
				if !bytes.Equal(f.Data, second.Files[i].Data) {
					t.Errorf("%s differs between two runs:\n%s\n---\n%s", f.Name, f.Data, second.Files[i].Data)
				}
				// The header names the field kubeconfigExpireSeconds; no kubeconfig is anywhere else.
				data := strings.ReplaceAll(string(f.Data), "spec.kubeconfigExpireSeconds", "")
				for _, secret := range []string{tc.token, "kubeconfig", "BEGIN", "client-key", "token:"} {
					if strings.Contains(data, secret) {
						t.Errorf("%s holds %q:\n%s", f.Name, secret, f.Data)
					}
				}
				if !strings.HasPrefix(string(f.Data), "# Discovered in ") {
					t.Errorf("%s does not start by saying where it came from:\n%s", f.Name, f.Data)
				}
				if err := stackinput.Parse(f.Data, f.Name, stackInput(f.Kind)); err != nil {
					t.Errorf("%s is not a valid %s: %v\n%s", f.Name, f.Kind, err, f.Data)
				}
			}
			if got, want := strings.Join(names, " "), strings.Join(tc.files, " "); got != want {
				t.Errorf("files %s, want %s", got, want)
			}
		})
	}
}

func TestAHundredClustersCostOneListRequest(t *testing.T) {
	do := fakedo.New(t, doToken)
	s := seed.Client{URL: do.URL(), Token: doToken}
	for i := range 100 {
		if _, _, err := fakedo.Seed(context.Background(), s, seed.Cluster{Name: fmt.Sprintf("c%03d", i), Region: "fra1",
			Pools: []seed.Pool{{Count: 1}, {Name: "extra", Count: 1}}}); err != nil {
			t.Fatal(err)
		}
	}
	do.Reset()
	res, err := discover.Discover(context.Background(), discover.Options{Kinds: registry.Kinds(), Cloud: "digitalocean", Token: doToken, APIURL: do.URL()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Clusters != 100 || res.Pools != 100 || len(res.Files) != 200 {
		t.Errorf("%d clusters, %d pools, %d files; want 100, 100, 200", res.Clusters, res.Pools, len(res.Files))
	}
	if got := len(do.Requests("")); got != 1 || res.Requests != 1 {
		t.Errorf("%d requests (counted %d), want 1: the list's pages, not one per resource", got, res.Requests)
	}
}

func TestA429IsAnsweredByWaitingAsRetryAfterSays(t *testing.T) {
	do := seededDO(t)
	do.Inject(fakecloud.Fault{Method: http.MethodGet, Path: "/v2/kubernetes/clusters", Status: http.StatusTooManyRequests, RetryAfter: time.Second})
	start := time.Now()
	res, err := discover.Discover(context.Background(), discover.Options{Kinds: registry.Kinds(), Cloud: "digitalocean", Token: doToken, APIURL: do.URL()})
	if err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("answered a 429 with Retry-After 1 after %v", waited)
	}
	if res.Requests != 2 || res.Clusters != 2 {
		t.Errorf("%d requests and %d clusters, want the refused list and its retry, and 2 clusters", res.Requests, res.Clusters)
	}
}

func TestErrorsNeverHoldTheTokenOrTheAPIURL(t *testing.T) {
	do := seededDO(t)
	do.Inject(fakecloud.Fault{Method: http.MethodGet, Status: http.StatusForbidden, Message: "denied", Times: 10})
	_, err := discover.Discover(context.Background(), discover.Options{Kinds: registry.Kinds(), Cloud: "digitalocean", Token: doToken, APIURL: do.URL()})
	if err == nil {
		t.Fatal("a 403 was not an error")
	}
	for _, s := range []string{doToken, do.URL()} {
		if strings.Contains(err.Error(), s) {
			t.Errorf("the error %q holds %q", err, s)
		}
	}
}

func TestTheClusterAndRegionFiltersKeepOnlyWhatTheyName(t *testing.T) {
	do := seededDO(t)
	for _, tc := range []struct {
		opts  discover.Options
		files string
	}{
		{discover.Options{Kinds: registry.Kinds(), Cluster: "shop"}, "shop.yaml shop-apps.yaml"},
		{discover.Options{Kinds: registry.Kinds(), Region: "fra1"}, "web.yaml web-batch.yaml"},
	} {
		o := tc.opts
		o.Cloud, o.Token, o.APIURL = "digitalocean", doToken, do.URL()
		res, err := discover.Discover(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range res.Files {
			names = append(names, f.Name)
		}
		if got := strings.Join(names, " "); got != tc.files {
			t.Errorf("cluster %q region %q: files %q, want %q", o.Cluster, o.Region, got, tc.files)
		}
	}
}

func TestAClusterNamedThatIsNotThereIsAnError(t *testing.T) {
	do := seededDO(t)
	_, err := discover.Discover(context.Background(), discover.Options{Kinds: registry.Kinds(), Cloud: "digitalocean", Token: doToken, APIURL: do.URL(), Cluster: "nothing"})
	if err == nil || !strings.Contains(err.Error(), `"nothing"`) {
		t.Errorf("error %v, want one naming the cluster asked for", err)
	}
}

// Promise: discover-names-stable
func TestClustersOfOneNameInTwoRegionsGetAManifestNameEach(t *testing.T) {
	civo := fakecivo.New(t, civoToken, "")
	s := seed.Client{URL: civo.URL(), Token: civoToken}
	for _, region := range []string{"fra1", "lon1"} {
		if _, _, err := fakecivo.Seed(context.Background(), s, seed.Cluster{Name: "api", Region: region, Pools: []seed.Pool{{}, {Name: "workers", Count: 1}}}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := discover.Discover(context.Background(), discover.Options{Kinds: registry.Kinds(), Cloud: "civo", Token: civoToken, APIURL: civo.URL()})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range res.Files {
		names = append(names, f.Name)
		if strings.Contains(f.Name, "workers") {
			region := strings.TrimSuffix(strings.TrimPrefix(f.Name, "api-"), "-workers.yaml")
			if !strings.Contains(string(f.Data), "name: api-"+region+"\n") {
				t.Errorf("%s does not refer to cluster api-%s:\n%s", f.Name, region, f.Data)
			}
		}
	}
	if got, want := strings.Join(names, " "), "api-fra1.yaml api-lon1.yaml api-fra1-workers.yaml api-lon1-workers.yaml"; got != want {
		t.Errorf("files %s, want %s", got, want)
	}
}

func TestAClusterInARegionTheCloudOpenedAfterTheReleaseIsDiscoveredWithItsRegion(t *testing.T) {
	ctx := context.Background()
	do := fakedo.New(t, doToken)
	do.Account().SetRegions("fra1", "xyz9")
	civo := fakecivo.New(t, civoToken, "")
	civo.Catalogue().SetRegions(append(slices.Clone(fakecivo.DefaultRegions), civogo.Region{Code: "xyz9", Name: "Tomorrow 1"})...)
	if _, _, err := fakedo.Seed(ctx, seed.Client{URL: do.URL(), Token: doToken}, seed.Cluster{Tool: fakedo.Doctl, Name: "new", Region: "xyz9"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := fakecivo.Seed(ctx, seed.Client{URL: civo.URL(), Token: civoToken}, seed.Cluster{Name: "new", Region: "xyz9"}); err != nil {
		t.Fatal(err)
	}
	for _, o := range []discover.Options{
		{Cloud: "digitalocean", Token: doToken, APIURL: do.URL()},
		{Cloud: "civo", Token: civoToken, APIURL: civo.URL()},
		{Cloud: "civo", Token: civoToken, APIURL: civo.URL(), Region: "xyz9"},
	} {
		o.Kinds = registry.Kinds()
		res, err := discover.Discover(ctx, o)
		if err != nil {
			t.Fatalf("%s: %v", o.Cloud, err)
		}
		if len(res.Files) == 0 || !strings.Contains(string(res.Files[0].Data), "region: xyz9\n") {
			t.Fatalf("%s region %q: files %+v, want the cluster in xyz9", o.Cloud, o.Region, res.Files)
		}
		f := res.Files[0]
		if err := stackinput.Parse(f.Data, f.Name, stackInput(f.Kind)); err != nil {
			t.Errorf("%s: the manifest of a cluster in xyz9 is invalid: %v\n%s", o.Cloud, err, f.Data)
		}
	}
}
