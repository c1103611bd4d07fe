package scan_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/digitalocean/godo"

	"github.com/clusterplane/clusterplane/pkg/cloud/scan"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

const token = "scan-token"

// recordedCluster is a DigitalOcean cluster's outputs as the provider's state holds them after a
// create (a trimmed copy of a sandbox stack's state), for the cluster seeded below.
func recordedCluster(poolID string) map[string]any {
	return map[string]any{
		"name": "dev", "region": "fra1", "version": "1.31.1-do.5", "surgeUpgrade": true, "ha": false,
		"autoUpgrade": false, "clusterSubnet": "10.244.0.0/16", "serviceSubnet": "10.245.0.0/16",
		"tags": []any{"team:web"}, "vpcUuid": "",
		"maintenancePolicy":    map[string]any{"day": "any", "startTime": "00:00", "duration": "4h0m0s"},
		"controlPlaneFirewall": map[string]any{"enabled": false, "allowedAddresses": []any{}},
		"routingAgent":         map[string]any{"enabled": false},
		"nodePool": map[string]any{
			"id": poolID, "name": "default", "size": "s-2vcpu-4gb", "nodeCount": float64(2), "actualNodeCount": float64(2),
			"autoScale": false, "minNodes": float64(0), "maxNodes": float64(0), "labels": nil, "tags": []any{}, "taints": []any{},
			"nodes": []any{map[string]any{"name": "default-a"}},
		},
		"endpoint": "https://127.0.0.1:9", "status": "running",
	}
}

func seed(t *testing.T, do *fakedo.DO) (clusterID, poolID, vpc string) {
	t.Helper()
	id := do.SeedCluster(godo.KubernetesCluster{Name: "dev", RegionSlug: "fra1", VersionSlug: "1.31.1-do.5", SurgeUpgrade: true,
		ClusterSubnet: "10.244.0.0/16", ServiceSubnet: "10.245.0.0/16", Tags: []string{"k8s", "team:web"},
		MaintenancePolicy: &godo.KubernetesMaintenancePolicy{StartTime: "00:00", Day: godo.KubernetesMaintenanceDayAny},
		NodePools: []*godo.KubernetesNodePool{{Name: "default", Size: "s-2vcpu-4gb", Count: 2,
			Tags: []string{"k8s", "k8s:worker", "terraform:default-node-pool"}}}})
	cl, _ := do.Cluster(id)
	return id, cl.NodePools[0].ID, cl.VPCUUID
}

// judgeCase is one case of what the cloud lists beside what the state recorded.
type judgeCase struct {
	name     string
	edit     func(do *fakedo.DO, clusterID, poolID string)
	recorded func(outputs map[string]any)
	ignore   []string
	// unsent is a property the program did not send.
	unsent string
	// hide are keys the list's answer leaves out (a pool's as node_pools.KEY).
	hide   []string
	want   scan.Verdict
	differ []string
}

// judgeCases are the cases TestJudgeTellsWhatTheCloudListsFromWhatTheStateRecorded judges.
var judgeCases = []judgeCase{
	{name: "a cluster as recorded is the same, DigitalOcean's own tags and empty values aside", want: scan.Same},
	{name: "a pool resized in the cloud differs in its node count",
		edit: func(do *fakedo.DO, c, p string) {
			do.EditPool(c, p, func(np *godo.KubernetesNodePool) { np.Count = 5 })
		}, want: scan.Differs, differ: []string{"nodePool.nodeCount"}},
	{name: "a tag added in the cloud differs in the tags",
		edit: func(do *fakedo.DO, c, _ string) {
			do.EditCluster(c, func(cl *godo.KubernetesCluster) { cl.Tags = append(cl.Tags, "sneaky") })
		}, want: scan.Differs, differ: []string{"tags"}},
	{name: "a label added to the default pool in the cloud differs in its labels",
		edit: func(do *fakedo.DO, c, p string) {
			do.EditPool(c, p, func(np *godo.KubernetesNodePool) { np.Labels = map[string]string{"a": "b"} })
		}, want: scan.Differs, differ: []string{"nodePool.labels"}},
	{name: "tags in another order are the same",
		recorded: func(o map[string]any) { o["tags"] = []any{"team:web"} },
		edit: func(do *fakedo.DO, c, _ string) {
			do.EditCluster(c, func(cl *godo.KubernetesCluster) { cl.Tags = []string{"team:web", "k8s"} })
		}, want: scan.Same},
	{name: "a version the module leaves to the cloud (auto-upgrade) is no difference",
		edit: func(do *fakedo.DO, c, _ string) {
			do.EditCluster(c, func(cl *godo.KubernetesCluster) { cl.VersionSlug = "1.31.9-do.0" })
		}, ignore: []string{"version"}, want: scan.Same},
	{name: "an upgraded version the module does not leave to the cloud differs",
		edit: func(do *fakedo.DO, c, _ string) {
			do.EditCluster(c, func(cl *godo.KubernetesCluster) { cl.VersionSlug = "1.31.9-do.0" })
		}, want: scan.Differs, differ: []string{"version"}},
	{name: "an autoscaled pool's count the module leaves to the cloud is no difference",
		edit: func(do *fakedo.DO, c, p string) {
			do.EditPool(c, p, func(np *godo.KubernetesNodePool) { np.Count = 4 })
		}, ignore: []string{"nodePool.nodeCount"}, want: scan.Same},
	{name: "an autoscaler setting removed in the cloud differs, as the provider reads the empty list it is then",
		recorded: func(o map[string]any) {
			o["clusterAutoscalerConfigurations"] = []any{map[string]any{"scaleDownUtilizationThreshold": 0.65, "scaleDownUnneededTime": "10m"}}
		}, want: scan.Differs, differ: []string{"clusterAutoscalerConfigurations"}},
	{name: "a control plane firewall removed in the cloud differs",
		recorded: func(o map[string]any) {
			o["controlPlaneFirewall"] = map[string]any{"enabled": true, "allowedAddresses": []any{"1.2.3.4/32"}}
		}, want: scan.Differs, differ: []string{"controlPlaneFirewall.enabled", "controlPlaneFirewall.allowedAddresses"}},
	{name: "a routing agent removed in the cloud differs",
		recorded: func(o map[string]any) { o["routingAgent"] = map[string]any{"enabled": true} },
		want:     scan.Differs, differ: []string{"routingAgent"}},
	{name: "a minor auto-upgrade the module leaves to the cloud differs, as the module refuses the older minor",
		edit: func(do *fakedo.DO, c, _ string) {
			do.EditCluster(c, func(cl *godo.KubernetesCluster) { cl.VersionSlug = "1.32.2-do.0" })
		}, ignore: []string{"version"}, want: scan.Differs, differ: []string{"version"}},
	// The provider would keep it as recorded; the cluster's module finds it gone and refuses.
	{name: "a default pool no longer tagged is left to the engine, whose program finds it gone",
		edit: func(do *fakedo.DO, c, p string) {
			do.EditPool(c, p, func(np *godo.KubernetesNodePool) { np.Tags = []string{"k8s"}; np.Count = 7 })
		}, want: scan.Unjudged},
	{name: "a computed property the program did not send is the cloud's to change",
		recorded: func(o map[string]any) { o["controlPlaneFirewall"] = map[string]any{"enabled": true} },
		unsent:   "controlPlaneFirewall", want: scan.Same},
	{name: "a cluster deleted in the cloud is missing",
		recorded: func(o map[string]any) {}, want: scan.Missing},
	{name: "a list that leaves out the cluster's pools is not judged, as the provider reads them on its own",
		edit: func(do *fakedo.DO, c, p string) {
			do.EditPool(c, p, func(np *godo.KubernetesNodePool) { np.Count = 3 })
		}, hide: []string{"node_pools"}, want: scan.Unjudged},
	{name: "a list whose pools leave out their tags is not judged, as the default pool cannot be told",
		edit: func(do *fakedo.DO, c, p string) {
			do.EditPool(c, p, func(np *godo.KubernetesNodePool) { np.Count = 3 })
		}, hide: []string{"node_pools.tags"}, want: scan.Unjudged},
	{name: "a list that leaves out the default pool's size is not judged",
		hide: []string{"node_pools.size"}, want: scan.Unjudged},
	{name: "a list that leaves out the version of an auto-upgraded cluster is not judged",
		edit: func(do *fakedo.DO, c, _ string) {
			do.EditCluster(c, func(cl *godo.KubernetesCluster) { cl.VersionSlug = "1.32.2-do.0" })
		}, ignore: []string{"version"}, hide: []string{"version"}, want: scan.Unjudged},
	{name: "a list that leaves out the version is not judged",
		hide: []string{"version"}, want: scan.Unjudged},
	{name: "a list that leaves out the version beside a resized pool is not judged, the resize kept as seen",
		edit: func(do *fakedo.DO, c, p string) {
			do.EditPool(c, p, func(np *godo.KubernetesNodePool) { np.Count = 5 })
		}, hide: []string{"version"}, want: scan.Unjudged, differ: []string{"nodePool.nodeCount"}},
	{name: "a list that leaves out the maintenance policy the program sent is not judged",
		hide: []string{"maintenance_policy"}, want: scan.Unjudged},
	{name: "a list that leaves out the tags, subnets and VPC is not judged",
		hide: []string{"tags", "cluster_subnet", "service_subnet", "vpc_uuid"}, want: scan.Unjudged},
}

// Promise: scan-compares-left-out-blocks
// Promise: scan-left-out-property-not-judged
// Promise: scan-cloud-owned-is-no-difference
func TestJudgeTellsWhatTheCloudListsFromWhatTheStateRecorded(t *testing.T) {
	for _, tt := range judgeCases {
		t.Run(tt.name, func(t *testing.T) {
			do := fakedo.New(t, token)
			clusterID, poolID, vpc := seed(t, do)
			if tt.edit != nil {
				tt.edit(do, clusterID, poolID)
			}
			outputs := recordedCluster(poolID)
			outputs["vpcUuid"] = vpc
			if tt.recorded != nil {
				tt.recorded(outputs)
			}
			// The program sent what the state recorded, the properties the cloud computes too.
			inputs := map[string]any{}
			for k, v := range outputs {
				inputs[k] = v
			}
			delete(inputs, tt.unsent)
			id := clusterID
			if tt.want == scan.Missing {
				id = "gone-" + clusterID
			}
			s := scan.New()
			f := s.Judge(context.Background(), scan.Account{Cloud: "digitalocean", Base: hiding(t, do.URL(), tt.hide), Token: token},
				scan.Resource{Type: "digitalocean:index/kubernetesCluster:KubernetesCluster", ID: id, Inputs: inputs, Outputs: outputs, Ignore: tt.ignore})
			if f.Verdict != tt.want {
				t.Fatalf("verdict %s (%s), want %s", f.Verdict, f.Why, tt.want)
			}
			var got []string
			for _, d := range f.Differences {
				got = append(got, d.Property)
			}
			if !slices.Equal(got, tt.differ) {
				t.Errorf("differences %v, want %v", got, tt.differ)
			}
		})
	}
}

// hiding is base behind a proxy that leaves keys out of each cluster the cluster list answers
// with (a pool's as node_pools.KEY), as a cloud's answer may; base itself with none.
func hiding(t *testing.T, base string, keys []string) string {
	t.Helper()
	if len(keys) == 0 {
		return base
	}
	target, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.URL.Path != "/v2/kubernetes/clusters" {
			return nil
		}
		var answer map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
			return err
		}
		clusters, _ := answer["kubernetes_clusters"].([]any)
		for _, c := range clusters {
			cl := c.(map[string]any)
			for _, k := range keys {
				poolKey, inPool := strings.CutPrefix(k, "node_pools.")
				if !inPool {
					delete(cl, k)
					continue
				}
				pools, _ := cl["node_pools"].([]any)
				for _, p := range pools {
					delete(p.(map[string]any), poolKey)
				}
			}
		}
		data, err := json.Marshal(answer)
		if err != nil {
			return err
		}
		resp.Body = io.NopCloser(bytes.NewReader(data))
		resp.ContentLength = int64(len(data))
		resp.Header.Set("Content-Length", strconv.Itoa(len(data)))
		return nil
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv.URL
}

// Promise: scan-left-out-property-not-judged
func TestAPoolWhoseClusterIsListedWithoutPoolsIsNotJudged(t *testing.T) {
	tests := []struct {
		name string
		hide []string
		want scan.Verdict
	}{
		{"a pool listed with its cluster is judged", nil, scan.Same},
		{"a pool whose cluster the list gives without pools is not judged, not missing", []string{"node_pools"}, scan.Unjudged},
		{"a pool listed without its node count is not judged", []string{"node_pools.count"}, scan.Unjudged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			do := fakedo.New(t, token)
			clusterID, poolID, _ := seed(t, do)
			outputs := map[string]any{"clusterId": clusterID, "name": "default", "size": "s-2vcpu-4gb", "nodeCount": 2}
			f := scan.New().Judge(context.Background(), scan.Account{Cloud: "digitalocean", Base: hiding(t, do.URL(), tt.hide), Token: token},
				scan.Resource{Type: "digitalocean:index/kubernetesNodePool:KubernetesNodePool", ID: poolID, Outputs: outputs})
			if f.Verdict != tt.want {
				t.Errorf("verdict %s (%s), want %s", f.Verdict, f.Why, tt.want)
			}
		})
	}
}

func TestAFleetIsJudgedFromOneListOfItsAccount(t *testing.T) {
	do := fakedo.New(t, token)
	s := scan.New()
	a := scan.Account{Cloud: "digitalocean", Base: do.URL(), Token: token}
	for range 5 {
		_, pool, _ := seed(t, do)
		s.Judge(context.Background(), a, scan.Resource{Type: "digitalocean:index/kubernetesNodePool:KubernetesNodePool", ID: pool,
			Outputs: map[string]any{"name": "default", "size": "s-2vcpu-4gb", "nodeCount": 2}})
	}
	// The first judgement listed the account; the clusters seeded later are not in that list.
	if got := len(do.Requests("GET")); got != 1 {
		t.Errorf("%d GET requests for 5 judgements, want 1 (one list)", got)
	}
	if s.Requests() != 1 {
		t.Errorf("the scanner counts %d requests, want 1", s.Requests())
	}
	unheld := s.Unheld()
	if len(unheld) != 0 {
		t.Errorf("clusters held by no judged stack: %v, want none (the one listed holds the first pool)", unheld)
	}
}

func TestClustersNoJudgedStackHoldsAreListedForDiscover(t *testing.T) {
	do := fakedo.New(t, token)
	id, pool, _ := seed(t, do)
	other, _, _ := seed(t, do)
	s := scan.New()
	s.Judge(context.Background(), scan.Account{Cloud: "digitalocean", Base: do.URL(), Token: token},
		scan.Resource{Type: "digitalocean:index/kubernetesCluster:KubernetesCluster", ID: id, Outputs: recordedCluster(pool)})
	unheld := s.Unheld()
	if len(unheld) != 1 || unheld[0].ID != other {
		t.Errorf("unheld %v, want the other cluster %s alone", unheld, other)
	}
}

// Promise: scan-leaves-unjudged-to-engine
func TestATypeTheScanDoesNotReadIsLeftUnjudged(t *testing.T) {
	s := scan.New()
	f := s.Judge(context.Background(), scan.Account{Cloud: "digitalocean", Token: token},
		scan.Resource{Type: "digitalocean:index/firewall:Firewall", ID: "x"})
	if f.Verdict != scan.Unjudged {
		t.Errorf("verdict %s, want unjudged", f.Verdict)
	}
}

// Promise: scan-leaves-unjudged-to-engine
func TestAListThatFailsLeavesTheStackUnjudged(t *testing.T) {
	do := fakedo.New(t, token)
	s := scan.New()
	f := s.Judge(context.Background(), scan.Account{Cloud: "digitalocean", Base: do.URL(), Token: "wrong-token"},
		scan.Resource{Type: "digitalocean:index/kubernetesCluster:KubernetesCluster", ID: "x"})
	if f.Verdict != scan.Unjudged {
		t.Errorf("verdict %s (%s), want unjudged", f.Verdict, f.Why)
	}
}
