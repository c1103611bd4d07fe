package fakedo_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/digitalocean/godo"
)

const token = "dop_v1_fake"

// start is a fake and a godo client of it, with godo's own retries.
func start(t *testing.T) (*fakedo.DO, *godo.Client) {
	t.Helper()
	d := fakedo.New(t, token)
	return d, client(t, d, token)
}

func client(t *testing.T, d *fakedo.DO, tok string) *godo.Client {
	t.Helper()
	c := godo.NewFromToken(tok)
	u, err := url.Parse(d.URL())
	if err != nil {
		t.Fatalf("parse the fake's URL: %v", err)
	}
	c.BaseURL = u
	return c
}

// bearer adds the token to requests, for a godo client without retries.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

func createRequest(name string) *godo.KubernetesClusterCreateRequest {
	return &godo.KubernetesClusterCreateRequest{
		Name:         name,
		RegionSlug:   "nyc1",
		VersionSlug:  "1.31.9-do.0",
		Tags:         []string{"team"},
		SurgeUpgrade: true,
		NodePools: []*godo.KubernetesNodePoolCreateRequest{{
			Name:   "workers",
			Size:   "s-2vcpu-4gb",
			Count:  2,
			Tags:   []string{"terraform:default-node-pool"},
			Labels: map[string]string{"tier": "web"},
			Taints: []godo.Taint{{Key: "dedicated", Value: "web", Effect: "NoSchedule"}},
		}},
	}
}

func create(t *testing.T, c *godo.Client, req *godo.KubernetesClusterCreateRequest) *godo.KubernetesCluster {
	t.Helper()
	cl, _, err := c.Kubernetes.Create(context.Background(), req)
	if err != nil {
		t.Fatalf("create cluster %s: %v", req.Name, err)
	}
	return cl
}

func get(t *testing.T, c *godo.Client, id string) *godo.KubernetesCluster {
	t.Helper()
	cl, _, err := c.Kubernetes.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("get cluster %s: %v", id, err)
	}
	return cl
}

// apiError is err as godo reports an API's refusal, which must have status.
func apiError(t *testing.T, err error, status int) *godo.ErrorResponse {
	t.Helper()
	var e *godo.ErrorResponse
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want an API error with status %d", err, status)
	}
	if e.Response.StatusCode != status {
		t.Fatalf("got status %d (%s), want %d", e.Response.StatusCode, e.Message, status)
	}
	return e
}

// send is a request with a body godo's types cannot express.
func send(c *godo.Client, method, path, body string) (*godo.Response, error) {
	ctx := context.Background()
	var payload any
	if body != "" {
		payload = json.RawMessage(body)
	}
	req, err := c.NewRequest(ctx, method, path, payload)
	if err != nil {
		return nil, err
	}
	return c.Do(ctx, req, nil)
}

func nodeStates(cl *godo.KubernetesCluster) []string {
	var out []string
	for _, p := range cl.NodePools {
		for _, n := range p.Nodes {
			out = append(out, n.Status.State)
		}
	}
	return out
}

func allAre(states []string, want string) bool {
	return len(states) > 0 && !slices.ContainsFunc(states, func(s string) bool { return s != want })
}

func TestACreatedClusterCarriesEverythingTheProviderReads(t *testing.T) {
	d, c := start(t)
	cl := create(t, c, createRequest("web"))

	if cl.ID == "" || cl.Status == nil || cl.Status.State != godo.KubernetesClusterStatusProvisioning {
		t.Fatalf("a new cluster is %+v, want an id and provisioning", cl.Status)
	}
	mp := cl.MaintenancePolicy
	if mp == nil || mp.Day != godo.KubernetesMaintenanceDayAny || mp.StartTime != "00:00" || mp.Duration != "4h0m0s" {
		t.Errorf("maintenance policy is %+v, want any 00:00 4h0m0s", mp)
	}
	if cl.VPCUUID != fakedo.DefaultVPC("nyc1") || cl.ClusterSubnet != "10.244.0.0/16" || cl.ServiceSubnet != "10.245.0.0/16" {
		t.Errorf("network is vpc %s, subnets %s %s; want nyc1's default VPC and the default subnets", cl.VPCUUID, cl.ClusterSubnet, cl.ServiceSubnet)
	}
	if cl.Endpoint != "https://"+cl.ID+".k8s.ondigitalocean.com" || cl.IPv4 == "" {
		t.Errorf("endpoint %q ipv4 %q", cl.Endpoint, cl.IPv4)
	}
	if want := []string{"team", "k8s", "k8s:" + cl.ID}; !slices.Equal(cl.Tags, want) {
		t.Errorf("tags are %v, want %v", cl.Tags, want)
	}
	if cl.CreatedAt.IsZero() || cl.UpdatedAt.IsZero() {
		t.Errorf("created_at %v updated_at %v, want both", cl.CreatedAt, cl.UpdatedAt)
	}
	if cl.RoutingAgent == nil || cl.RoutingAgent.Enabled == nil || *cl.RoutingAgent.Enabled ||
		cl.NvidiaGpuDevicePlugin == nil || cl.RdmaSharedDevicePlugin == nil || cl.ControlPlaneFirewall == nil {
		t.Errorf("plugins are missing or enabled: %+v %+v", cl.RoutingAgent, cl.ControlPlaneFirewall)
	}
	if cl.ClusterAutoscalerConfiguration != nil {
		t.Errorf("an autoscaler configuration no one asked for: %+v", cl.ClusterAutoscalerConfiguration)
	}
	if len(cl.NodePools) != 1 {
		t.Fatalf("%d pools, want 1", len(cl.NodePools))
	}
	p := cl.NodePools[0]
	if p.ID == "" || len(p.Nodes) != 2 {
		t.Fatalf("pool %q has %d nodes, want an id and 2 nodes", p.ID, len(p.Nodes))
	}
	if want := []string{"terraform:default-node-pool", "k8s", "k8s:" + cl.ID, "k8s:worker"}; !slices.Equal(p.Tags, want) {
		t.Errorf("pool tags are %v, want %v", p.Tags, want)
	}
	for _, n := range p.Nodes {
		if n.ID == "" || !strings.HasPrefix(n.Name, "workers-") || len(n.Name) != len("workers-")+5 || n.DropletID == "" {
			t.Errorf("node %+v, want an id, a droplet and a name workers-xxxxx", n)
		}
	}
	if !allAre(nodeStates(cl), "provisioning") {
		t.Errorf("new nodes are %v, want provisioning", nodeStates(cl))
	}
	if _, ok := d.Cluster(cl.ID); !ok {
		t.Error("the fake does not hold the created cluster")
	}
}

func TestAClusterRunsAfterTheConfiguredPolls(t *testing.T) {
	for _, polls := range []int{0, 1, 3} {
		t.Run(strings.Repeat("poll ", polls)+"then running", func(t *testing.T) {
			d, c := start(t)
			d.SetProvisionPolls(polls)
			id := create(t, c, createRequest("web")).ID
			for i := range polls {
				if cl := get(t, c, id); cl.Status.State != "provisioning" || !allAre(nodeStates(cl), "provisioning") {
					t.Fatalf("GET %d: cluster %s nodes %v, want provisioning", i+1, cl.Status.State, nodeStates(cl))
				}
			}
			if cl := get(t, c, id); cl.Status.State != "running" || !allAre(nodeStates(cl), "running") {
				t.Fatalf("GET %d: cluster %s nodes %v, want running", polls+1, cl.Status.State, nodeStates(cl))
			}
		})
	}
}

func TestHoldKeepsANewClusterProvisioningUntilReleased(t *testing.T) {
	d, c := start(t)
	d.SetHold(true)
	id := create(t, c, createRequest("web")).ID
	for range 5 {
		if s := get(t, c, id).Status.State; s != "provisioning" {
			t.Fatalf("a held cluster is %s", s)
		}
	}
	d.SetHold(false)
	if s := get(t, c, id).Status.State; s != "running" {
		t.Fatalf("a released cluster is %s, want running", s)
	}
}

func TestCreateRefusesWhatDigitalOceanRefuses(t *testing.T) {
	cases := []struct {
		name string
		edit func(*fakedo.DO, *godo.KubernetesClusterCreateRequest)
		want string // "" accepts
	}{
		{"an unknown region", func(_ *fakedo.DO, r *godo.KubernetesClusterCreateRequest) { r.RegionSlug = "mars1" }, "validation error: invalid region"},
		{"an unoffered version", func(_ *fakedo.DO, r *godo.KubernetesClusterCreateRequest) { r.VersionSlug = "1.20.0-do.0" }, "validation error: invalid version slug"},
		{"an unknown size", func(_ *fakedo.DO, r *godo.KubernetesClusterCreateRequest) { r.NodePools[0].Size = "s-64vcpu-1tb" }, "validation error: invalid size"},
		{"an unknown VPC", func(_ *fakedo.DO, r *godo.KubernetesClusterCreateRequest) {
			r.VPCUUID = "0b9e7c5c-0000-4000-8000-000000000000"
		}, "validation error: invalid vpc_uuid"},
		{"a VPC of another region", func(d *fakedo.DO, r *godo.KubernetesClusterCreateRequest) {
			d.Account().SeedVPC("5f1d5b7e-1111-4111-8111-111111111111", "lon1")
			r.VPCUUID = "5f1d5b7e-1111-4111-8111-111111111111"
		}, "validation error: vpc_uuid is not in the cluster's region"},
		{"no node pool", func(_ *fakedo.DO, r *godo.KubernetesClusterCreateRequest) { r.NodePools = nil }, "at least one node pool"},
		{"a pool of no nodes", func(_ *fakedo.DO, r *godo.KubernetesClusterCreateRequest) { r.NodePools[0].Count = 0 }, "count must be at least 1"},
		{"a bad subnet", func(_ *fakedo.DO, r *godo.KubernetesClusterCreateRequest) { r.ClusterSubnet = "10.0.0.0" }, "invalid cluster_subnet"},
		{"a seeded VPC of the region is accepted", func(d *fakedo.DO, r *godo.KubernetesClusterCreateRequest) {
			d.Account().SeedVPC("5f1d5b7e-2222-4222-8222-222222222222", "nyc1")
			r.VPCUUID = "5f1d5b7e-2222-4222-8222-222222222222"
		}, ""},
		{"latest is the latest offered version", func(_ *fakedo.DO, r *godo.KubernetesClusterCreateRequest) { r.VersionSlug = "latest" }, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, c := start(t)
			req := createRequest("web")
			tc.edit(d, req)
			cl, _, err := c.Kubernetes.Create(context.Background(), req)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if req.VPCUUID != "" && cl.VPCUUID != req.VPCUUID {
					t.Errorf("vpc is %s, want %s", cl.VPCUUID, req.VPCUUID)
				}
				if req.VersionSlug == "latest" && cl.VersionSlug != "1.33.1-do.0" {
					t.Errorf("latest made %s, want 1.33.1-do.0", cl.VersionSlug)
				}
				return
			}
			if e := apiError(t, err, http.StatusUnprocessableEntity); !strings.Contains(e.Message, tc.want) || e.RequestID == "" {
				t.Errorf("message %q request %q, want %q and a request id", e.Message, e.RequestID, tc.want)
			}
			if n := len(d.Clusters()); n != 0 {
				t.Errorf("a refused create left %d clusters", n)
			}
		})
	}
}

func TestClusterUpdateChangesOnlyTheKeysSent(t *testing.T) {
	cases := []struct {
		name   string
		create func(*godo.KubernetesClusterCreateRequest)
		update *godo.KubernetesClusterUpdateRequest
		raw    string // sent instead of update when set
		check  func(t *testing.T, after *godo.KubernetesCluster, body map[string]any)
	}{
		{
			name:   "surge_upgrade false is omitted by godo so the cluster keeps surging",
			update: &godo.KubernetesClusterUpdateRequest{Name: "renamed", SurgeUpgrade: false},
			check: func(t *testing.T, after *godo.KubernetesCluster, body map[string]any) {
				if _, sent := body["surge_upgrade"]; sent {
					t.Errorf("godo sent surge_upgrade: %v", body)
				}
				if after.Name != "renamed" || !after.SurgeUpgrade {
					t.Errorf("name %q surge %v, want renamed and still surging", after.Name, after.SurgeUpgrade)
				}
			},
		},
		{
			name:   "sent tags replace the client's and keep DigitalOcean's",
			update: &godo.KubernetesClusterUpdateRequest{Tags: []string{"a", "b"}},
			check: func(t *testing.T, after *godo.KubernetesCluster, _ map[string]any) {
				if want := []string{"a", "b", "k8s", "k8s:" + after.ID}; !slices.Equal(after.Tags, want) {
					t.Errorf("tags %v, want %v", after.Tags, want)
				}
			},
		},
		{
			name:   "emptied tags are omitted by godo so the old ones stay",
			update: &godo.KubernetesClusterUpdateRequest{Name: "web", Tags: []string{}},
			check: func(t *testing.T, after *godo.KubernetesCluster, _ map[string]any) {
				if !slices.Contains(after.Tags, "team") {
					t.Errorf("tags %v lost team", after.Tags)
				}
			},
		},
		{
			name: "a null address list clears the firewall's addresses and a null enabled keeps it on",
			create: func(r *godo.KubernetesClusterCreateRequest) {
				r.ControlPlaneFirewall = &godo.KubernetesControlPlaneFirewall{Enabled: godo.PtrTo(true), AllowedAddresses: []string{"1.2.3.4/32"}}
			},
			update: &godo.KubernetesClusterUpdateRequest{ControlPlaneFirewall: &godo.KubernetesControlPlaneFirewall{}},
			check: func(t *testing.T, after *godo.KubernetesCluster, body map[string]any) {
				if fw := body["control_plane_firewall"].(map[string]any); fw["allowed_addresses"] != nil {
					t.Errorf("godo sent %v, want a null list", fw)
				}
				fw := after.ControlPlaneFirewall
				if fw.Enabled == nil || !*fw.Enabled || len(fw.AllowedAddresses) != 0 {
					t.Errorf("firewall %v %v, want on with no addresses", fw.Enabled, fw.AllowedAddresses)
				}
			},
		},
		{
			name: "zero autoscaler settings unset them and the configuration reads back absent",
			create: func(r *godo.KubernetesClusterCreateRequest) {
				r.ClusterAutoscalerConfiguration = &godo.KubernetesClusterAutoscalerConfiguration{
					ScaleDownUtilizationThreshold: godo.PtrTo(0.5), ScaleDownUnneededTime: godo.PtrTo("1m30s"), Expanders: []string{"priority"}}
			},
			update: &godo.KubernetesClusterUpdateRequest{ClusterAutoscalerConfiguration: &godo.KubernetesClusterAutoscalerConfiguration{
				ScaleDownUtilizationThreshold: godo.PtrTo(0.0), ScaleDownUnneededTime: godo.PtrTo(""), Expanders: []string{}}},
			check: func(t *testing.T, after *godo.KubernetesCluster, _ map[string]any) {
				if a := after.ClusterAutoscalerConfiguration; a != nil {
					t.Errorf("configuration %+v, want none", a)
				}
			},
		},
		{
			name: "null autoscaler settings keep the stored ones",
			create: func(r *godo.KubernetesClusterCreateRequest) {
				r.ClusterAutoscalerConfiguration = &godo.KubernetesClusterAutoscalerConfiguration{
					ScaleDownUtilizationThreshold: godo.PtrTo(0.5), ScaleDownUnneededTime: godo.PtrTo("1m30s")}
			},
			update: &godo.KubernetesClusterUpdateRequest{ClusterAutoscalerConfiguration: &godo.KubernetesClusterAutoscalerConfiguration{
				Expanders: []string{"priority"}}},
			check: func(t *testing.T, after *godo.KubernetesCluster, _ map[string]any) {
				a := after.ClusterAutoscalerConfiguration
				if a == nil || a.ScaleDownUtilizationThreshold == nil || *a.ScaleDownUtilizationThreshold != 0.5 ||
					a.ScaleDownUnneededTime == nil || *a.ScaleDownUnneededTime != "1m30s" || !slices.Equal(a.Expanders, []string{"priority"}) {
					t.Errorf("configuration %+v, want 0.5, 1m30s and the new expander", a)
				}
			},
		},
		{
			name:   "an all-null autoscaler configuration leaves a cluster without one",
			update: &godo.KubernetesClusterUpdateRequest{ClusterAutoscalerConfiguration: &godo.KubernetesClusterAutoscalerConfiguration{}},
			check: func(t *testing.T, after *godo.KubernetesCluster, _ map[string]any) {
				if a := after.ClusterAutoscalerConfiguration; a != nil {
					t.Errorf("configuration %+v, want none", a)
				}
			},
		},
		{
			name: "a maintenance policy keeps its day and start time and gets the fake's duration",
			update: &godo.KubernetesClusterUpdateRequest{MaintenancePolicy: &godo.KubernetesMaintenancePolicy{
				StartTime: "04:00", Day: godo.KubernetesMaintenanceDayMonday}},
			check: func(t *testing.T, after *godo.KubernetesCluster, _ map[string]any) {
				if mp := after.MaintenancePolicy; mp.Day != godo.KubernetesMaintenanceDayMonday || mp.StartTime != "04:00" || mp.Duration != "4h0m0s" {
					t.Errorf("policy %+v, want monday 04:00 4h0m0s", mp)
				}
			},
		},
		{
			name: "a null maintenance policy says nothing",
			raw:  `{"maintenance_policy": null}`,
			check: func(t *testing.T, after *godo.KubernetesCluster, _ map[string]any) {
				if mp := after.MaintenancePolicy; mp == nil || mp.StartTime != "00:00" {
					t.Errorf("policy %+v, want the stored one", mp)
				}
			},
		},
		{
			name:   "auto_upgrade is a pointer so false is sent and turns it off",
			create: func(r *godo.KubernetesClusterCreateRequest) { r.AutoUpgrade = true },
			update: &godo.KubernetesClusterUpdateRequest{AutoUpgrade: godo.PtrTo(false)},
			check: func(t *testing.T, after *godo.KubernetesCluster, _ map[string]any) {
				if after.AutoUpgrade {
					t.Error("auto upgrade is still on")
				}
			},
		},
		{
			name: "a plugin sent with a null enabled keeps its state",
			create: func(r *godo.KubernetesClusterCreateRequest) {
				r.RoutingAgent = &godo.KubernetesRoutingAgent{Enabled: godo.PtrTo(true)}
			},
			update: &godo.KubernetesClusterUpdateRequest{RoutingAgent: &godo.KubernetesRoutingAgent{},
				NvidiaGpuDevicePlugin: &godo.KubernetesNvidiaGpuDevicePlugin{Enabled: godo.PtrTo(true)}},
			check: func(t *testing.T, after *godo.KubernetesCluster, _ map[string]any) {
				if e := after.RoutingAgent.Enabled; e == nil || !*e {
					t.Error("the routing agent was turned off by a null")
				}
				if e := after.NvidiaGpuDevicePlugin.Enabled; e == nil || !*e {
					t.Error("the NVIDIA plugin was not turned on")
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, c := start(t)
			req := createRequest("web")
			if tc.create != nil {
				tc.create(req)
			}
			id := create(t, c, req).ID
			var err error
			if tc.raw != "" {
				_, err = send(c, http.MethodPut, "/v2/kubernetes/clusters/"+id, tc.raw)
			} else {
				var resp *godo.Response
				_, resp, err = c.Kubernetes.Update(context.Background(), id, tc.update)
				if err == nil && resp.StatusCode != http.StatusAccepted {
					t.Errorf("update answered %d, want 202", resp.StatusCode)
				}
			}
			if err != nil {
				t.Fatalf("update: %v", err)
			}
			tc.check(t, get(t, c, id), d.LastBody(t, http.MethodPut, "/v2/kubernetes/clusters/"))
		})
	}
}

func TestHighAvailabilityCanBeTurnedOnButNotOff(t *testing.T) {
	cases := []struct {
		name     string
		from, to bool
		refused  bool
	}{
		{"off to on is accepted", false, true, false},
		{"on to off is refused", true, false, true},
		{"on to on is accepted", true, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, c := start(t)
			req := createRequest("web")
			req.HA = godo.PtrTo(tc.from)
			id := create(t, c, req).ID
			_, _, err := c.Kubernetes.Update(context.Background(), id, &godo.KubernetesClusterUpdateRequest{HA: godo.PtrTo(tc.to), Name: "renamed"})
			after := get(t, c, id)
			if !tc.refused {
				if err != nil || after.HA != tc.to {
					t.Fatalf("err %v, ha %v; want %v", err, after.HA, tc.to)
				}
				return
			}
			if e := apiError(t, err, http.StatusUnprocessableEntity); !strings.Contains(e.Message, "high availability cannot be disabled") {
				t.Errorf("message %q", e.Message)
			}
			if !after.HA || after.Name != "web" {
				t.Errorf("a refused update changed the cluster: ha %v name %q", after.HA, after.Name)
			}
		})
	}
}

func TestUpgradesGoUpOneMinorReleaseAtMost(t *testing.T) {
	cases := []struct {
		to      string
		refused string // "" accepts
	}{
		{"1.31.9-do.2", ""},
		{"1.32.2-do.0", ""},
		{"1.33.1-do.0", "skips a minor release"},
		{"1.30.10-do.0", "is not later than"},
		{"1.31.9-do.0", "is not later than"},
		{"1.34.0-do.0", "is not available"},
	}
	for _, tc := range cases {
		t.Run("from 1.31.9-do.0 to "+tc.to, func(t *testing.T) {
			d, c := start(t)
			id := d.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "nyc1", VersionSlug: "1.31.9-do.0"})
			resp, err := c.Kubernetes.Upgrade(context.Background(), id, &godo.KubernetesClusterUpgradeRequest{VersionSlug: tc.to})
			after, _ := d.Cluster(id)
			if tc.refused == "" {
				if err != nil || resp.StatusCode != http.StatusAccepted || after.VersionSlug != tc.to {
					t.Fatalf("err %v, version %s; want an accepted upgrade to %s", err, after.VersionSlug, tc.to)
				}
				return
			}
			e := apiError(t, err, http.StatusUnprocessableEntity)
			if !strings.HasPrefix(e.Message, "invalid upgrade path") || !strings.Contains(e.Message, tc.refused) {
				t.Errorf("message %q, want invalid upgrade path ... %s", e.Message, tc.refused)
			}
			if after.VersionSlug != "1.31.9-do.0" {
				t.Errorf("a refused upgrade moved the cluster to %s", after.VersionSlug)
			}
		})
	}
}

func TestUpgradesListTheLaterVersionsOfThisAndTheNextMinorRelease(t *testing.T) {
	d, c := start(t)
	id := d.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "nyc1", VersionSlug: "1.31.9-do.0"})
	versions, _, err := c.Kubernetes.GetUpgrades(context.Background(), id)
	if err != nil {
		t.Fatalf("get upgrades: %v", err)
	}
	var got []string
	for _, v := range versions {
		got = append(got, v.Slug)
	}
	if want := []string{"1.31.9-do.2", "1.32.2-do.0"}; !slices.Equal(got, want) {
		t.Errorf("upgrades %v, want %v", got, want)
	}
}

func TestANodePoolIsCreatedScaledAndDeleted(t *testing.T) {
	ctx := context.Background()
	d, c := start(t)
	cid := d.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "nyc1"})

	p, resp, err := c.Kubernetes.CreateNodePool(ctx, cid, &godo.KubernetesNodePoolCreateRequest{Name: "batch", Size: "c-4", Count: 2})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create pool: %v", err)
	}
	if p.ID == "" || len(p.Nodes) != 2 || p.Nodes[0].Status.State != "provisioning" {
		t.Fatalf("new pool %+v, want an id and 2 provisioning nodes", p)
	}
	if got, _, err := c.Kubernetes.GetNodePool(ctx, cid, p.ID); err != nil || got.Nodes[1].Status.State != "running" {
		t.Fatalf("read pool: %v, want running nodes", err)
	}
	first := p.Nodes[0].ID

	scaled, _, err := c.Kubernetes.UpdateNodePool(ctx, cid, p.ID, &godo.KubernetesNodePoolUpdateRequest{Count: godo.PtrTo(3)})
	if err != nil {
		t.Fatalf("scale up: %v", err)
	}
	if len(scaled.Nodes) != 3 || scaled.Count != 3 || scaled.Nodes[0].ID != first ||
		scaled.Nodes[0].Status.State != "running" || scaled.Nodes[2].Status.State != "provisioning" {
		t.Fatalf("scaled pool %d nodes, want the first kept running and a new one provisioning", len(scaled.Nodes))
	}
	down, _, err := c.Kubernetes.UpdateNodePool(ctx, cid, p.ID, &godo.KubernetesNodePoolUpdateRequest{Count: godo.PtrTo(1)})
	if err != nil || len(down.Nodes) != 1 || down.Nodes[0].ID != first {
		t.Fatalf("scale down: %v, %d nodes", err, len(down.Nodes))
	}

	if resp, err := c.Kubernetes.DeleteNodePool(ctx, cid, p.ID); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete pool: %v", err)
	}
	_, _, err = c.Kubernetes.GetNodePool(ctx, cid, p.ID)
	apiError(t, err, http.StatusNotFound)
	if _, ok := d.Pool(cid, p.ID); ok {
		t.Error("the fake still holds the deleted pool")
	}
}

func TestNodePoolsOfAnUnknownClusterAreNotFound(t *testing.T) {
	ctx := context.Background()
	_, c := start(t)
	const cid = "8a1e0f9c-3333-4333-8333-333333333333"
	calls := map[string]func() error{
		"list": func() error { _, _, err := c.Kubernetes.ListNodePools(ctx, cid, nil); return err },
		"create": func() error {
			_, _, err := c.Kubernetes.CreateNodePool(ctx, cid, &godo.KubernetesNodePoolCreateRequest{Name: "a", Size: "c-4", Count: 1})
			return err
		},
		"get":    func() error { _, _, err := c.Kubernetes.GetNodePool(ctx, cid, "p"); return err },
		"delete": func() error { _, err := c.Kubernetes.DeleteNodePool(ctx, cid, "p"); return err },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) { apiError(t, call(), http.StatusNotFound) })
	}
}

func TestNodePoolUpdateChangesOnlyTheKeysSent(t *testing.T) {
	cases := []struct {
		name   string
		update *godo.KubernetesNodePoolUpdateRequest
		raw    string
		check  func(t *testing.T, cid string, after godo.KubernetesNodePool)
	}{
		{
			name:   "labels and taints omitted keep the stored ones",
			update: &godo.KubernetesNodePoolUpdateRequest{Name: "renamed", Labels: map[string]string{}},
			check: func(t *testing.T, _ string, after godo.KubernetesNodePool) {
				if after.Name != "renamed" || after.Labels["tier"] != "web" || len(after.Taints) != 1 || after.Count != 2 {
					t.Errorf("pool %q labels %v taints %v count %d, want renamed and the rest kept", after.Name, after.Labels, after.Taints, after.Count)
				}
			},
		},
		{
			name:   "taints sent as an empty list clear them",
			update: &godo.KubernetesNodePoolUpdateRequest{Taints: &[]godo.Taint{}},
			check: func(t *testing.T, _ string, after godo.KubernetesNodePool) {
				if len(after.Taints) != 0 || after.Labels["tier"] != "web" {
					t.Errorf("taints %v labels %v, want no taints and the labels kept", after.Taints, after.Labels)
				}
			},
		},
		{
			name: "an empty labels object clears them",
			raw:  `{"labels": {}}`,
			check: func(t *testing.T, _ string, after godo.KubernetesNodePool) {
				if len(after.Labels) != 0 {
					t.Errorf("labels %v, want none", after.Labels)
				}
			},
		},
		{
			name: "a null count says nothing",
			raw:  `{"count": null, "auto_scale": null}`,
			check: func(t *testing.T, _ string, after godo.KubernetesNodePool) {
				if after.Count != 2 || len(after.Nodes) != 2 || after.AutoScale {
					t.Errorf("count %d with %d nodes, autoscale %v; want 2 and no autoscaling", after.Count, len(after.Nodes), after.AutoScale)
				}
			},
		},
		{
			name:   "sent tags replace the client's and keep DigitalOcean's",
			update: &godo.KubernetesNodePoolUpdateRequest{Tags: []string{"gpu", "k8s:worker"}},
			check: func(t *testing.T, cid string, after godo.KubernetesNodePool) {
				if want := []string{"gpu", "k8s", "k8s:" + cid, "k8s:worker"}; !slices.Equal(after.Tags, want) {
					t.Errorf("tags %v, want %v", after.Tags, want)
				}
			},
		},
		{
			name:   "autoscaling with min above max is refused",
			update: &godo.KubernetesNodePoolUpdateRequest{AutoScale: godo.PtrTo(true), MinNodes: godo.PtrTo(3), MaxNodes: godo.PtrTo(2)},
			check: func(t *testing.T, _ string, after godo.KubernetesNodePool) {
				if after.AutoScale {
					t.Error("a refused update turned autoscaling on")
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, c := start(t)
			cl := create(t, c, createRequest("web"))
			pid := cl.NodePools[0].ID
			path := "/v2/kubernetes/clusters/" + cl.ID + "/node_pools/" + pid
			var err error
			if tc.raw != "" {
				_, err = send(c, http.MethodPut, path, tc.raw)
			} else {
				_, _, err = c.Kubernetes.UpdateNodePool(context.Background(), cl.ID, pid, tc.update)
			}
			if tc.update != nil && tc.update.MinNodes != nil {
				apiError(t, err, http.StatusUnprocessableEntity)
			} else if err != nil {
				t.Fatalf("update pool: %v", err)
			}
			after, ok := d.Pool(cl.ID, pid)
			if !ok {
				t.Fatal("the pool is gone")
			}
			tc.check(t, cl.ID, after)
		})
	}
}

func TestCredentialsAreFreshEachTimeAndExpireAsAsked(t *testing.T) {
	ctx := context.Background()
	d, c := start(t)
	id := d.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "fra1"})
	cases := []struct {
		name   string
		expiry *int
		want   time.Duration
	}{
		{"an hour when asked for 3600 seconds", godo.PtrTo(3600), time.Hour},
		{"a week when asked for 0 seconds", godo.PtrTo(0), 7 * 24 * time.Hour},
		{"a week when not asked", nil, 7 * 24 * time.Hour},
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			creds, _, err := c.Kubernetes.GetCredentials(ctx, id, &godo.KubernetesClusterCredentialsGetRequest{ExpirySeconds: tc.expiry})
			if err != nil {
				t.Fatalf("get credentials: %v", err)
			}
			if creds.Server != "https://"+id+".k8s.ondigitalocean.com" || creds.Token == "" || seen[creds.Token] {
				t.Errorf("server %q token %q, want the endpoint and a new token", creds.Server, creds.Token)
			}
			seen[creds.Token] = true
			if left := time.Until(creds.ExpiresAt); left < tc.want-10*time.Second || left > tc.want+time.Second {
				t.Errorf("expires in %v, want %v", left, tc.want)
			}
			block, _ := pem.Decode(creds.CertificateAuthorityData)
			if block == nil {
				t.Fatalf("the CA is not PEM: %q", creds.CertificateAuthorityData)
			}
			if cert, err := x509.ParseCertificate(block.Bytes); err != nil || !cert.IsCA {
				t.Errorf("the CA does not parse as a CA certificate: %v", err)
			}
		})
	}
	t.Run("the kubeconfig is YAML for the endpoint with a token", func(t *testing.T) {
		cfg, _, err := c.Kubernetes.GetKubeConfigWithExpiry(ctx, id, 600)
		if err != nil {
			t.Fatalf("get kubeconfig: %v", err)
		}
		y := string(cfg.KubeconfigYAML)
		for _, want := range []string{"kind: Config", "server: https://" + id + ".k8s.ondigitalocean.com", "token: ", "do-fra1-web"} {
			if !strings.Contains(y, want) {
				t.Errorf("kubeconfig lacks %q:\n%s", want, y)
			}
		}
	})
	t.Run("an unknown cluster has none", func(t *testing.T) {
		_, _, err := c.Kubernetes.GetKubeConfig(ctx, "nope", nil)
		apiError(t, err, http.StatusNotFound)
	})
}

func TestOptionsOfferTheFakesVersionsRegionsAndSizes(t *testing.T) {
	d, c := start(t)
	d.Account().SetVersions("1.31.1-do.5", "1.33.1-do.0", "1.32.2-do.0")
	d.Account().SetRegions("nyc1", "lon1")
	d.Account().SetSizes("s-1vcpu-2gb")
	opts, _, err := c.Kubernetes.GetOptions(context.Background())
	if err != nil {
		t.Fatalf("get options: %v", err)
	}
	var versions, regions, sizes []string
	for _, v := range opts.Versions {
		versions = append(versions, v.Slug+"="+v.KubernetesVersion)
	}
	for _, r := range opts.Regions {
		regions = append(regions, r.Slug)
	}
	for _, s := range opts.Sizes {
		sizes = append(sizes, s.Slug)
	}
	if want := []string{"1.33.1-do.0=1.33.1", "1.32.2-do.0=1.32.2", "1.31.1-do.5=1.31.1"}; !slices.Equal(versions, want) {
		t.Errorf("versions %v, want %v (latest first)", versions, want)
	}
	if !slices.Equal(regions, []string{"nyc1", "lon1"}) || !slices.Equal(sizes, []string{"s-1vcpu-2gb"}) {
		t.Errorf("regions %v sizes %v", regions, sizes)
	}
	_, _, err = c.Kubernetes.Create(context.Background(), createRequest("web"))
	if e := apiError(t, err, http.StatusUnprocessableEntity); !strings.Contains(e.Message, "invalid version slug") {
		t.Errorf("a version no longer offered: %q", e.Message)
	}
}

func TestRegistryIntegrationNeedsARegistry(t *testing.T) {
	ctx := context.Background()
	for _, has := range []bool{true, false} {
		name := "an account with a registry integrates it"
		if !has {
			name = "an account without a registry is refused with 404"
		}
		t.Run(name, func(t *testing.T) {
			d, c := start(t)
			d.Account().SetRegistry(has)
			id := d.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "nyc1"})
			reg, _, getErr := c.Registry.Get(ctx)
			_, addErr := c.Kubernetes.AddRegistry(ctx, &godo.KubernetesClusterRegistryRequest{ClusterUUIDs: []string{id}})
			added, _ := d.Cluster(id)
			if !has {
				apiError(t, getErr, http.StatusNotFound)
				apiError(t, addErr, http.StatusNotFound)
				if added.RegistryEnabled {
					t.Error("the registry was integrated without one")
				}
				return
			}
			if getErr != nil || reg.Name == "" || addErr != nil || !added.RegistryEnabled {
				t.Fatalf("get %v (%+v), add %v, enabled %v", getErr, reg, addErr, added.RegistryEnabled)
			}
			if _, err := c.Kubernetes.RemoveRegistry(ctx, &godo.KubernetesClusterRegistryRequest{ClusterUUIDs: []string{id}}); err != nil {
				t.Fatalf("remove registry: %v", err)
			}
			if removed, _ := d.Cluster(id); removed.RegistryEnabled {
				t.Error("the registry is still integrated")
			}
		})
	}
}

func TestABadTokenIsUnauthorized(t *testing.T) {
	d := fakedo.New(t, token)
	for _, header := range []string{"", "Bearer wrong", "Basic " + token, token} {
		t.Run("Authorization: "+header, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, d.URL()+"/v2/kubernetes/clusters", nil)
			if err != nil {
				t.Fatal(err)
			}
			if header != "" {
				req.Header.Set("Authorization", header)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("request: %v", err)
			}
			defer resp.Body.Close()
			var body map[string]string
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatalf("decode the error: %v", err)
			}
			if resp.StatusCode != http.StatusUnauthorized || body["id"] != "unauthorized" || body["message"] == "" || body["request_id"] == "" {
				t.Errorf("status %d body %v, want 401 with DigitalOcean's error body", resp.StatusCode, body)
			}
		})
	}
	t.Run("godo with the wrong token", func(t *testing.T) {
		_, _, err := client(t, d, "wrong").Kubernetes.List(context.Background(), nil)
		apiError(t, err, http.StatusUnauthorized)
	})
}

func TestInjectedFaultsReachTheClient(t *testing.T) {
	ctx := context.Background()
	t.Run("a 429 with Retry-After is retried by godo after the wait", func(t *testing.T) {
		d, c := start(t)
		d.Inject(fakecloud.Fault{Method: http.MethodGet, Path: "/v2/kubernetes/options", Status: http.StatusTooManyRequests, RetryAfter: time.Second})
		began := time.Now()
		if _, _, err := c.Kubernetes.GetOptions(ctx); err != nil {
			t.Fatalf("get options: %v", err)
		}
		var statuses []int
		for _, r := range d.Requests(http.MethodGet) {
			statuses = append(statuses, r.Status)
		}
		if !slices.Equal(statuses, []int{429, 200}) || time.Since(began) < time.Second {
			t.Errorf("statuses %v after %v, want 429 then 200 a second apart", statuses, time.Since(began))
		}
	})
	t.Run("a 429 reaches a client that does not retry with Retry-After", func(t *testing.T) {
		d := fakedo.New(t, token)
		c, err := godo.New(&http.Client{Transport: bearer(token)}, godo.SetBaseURL(d.URL()))
		if err != nil {
			t.Fatal(err)
		}
		d.Inject(fakecloud.Fault{Status: http.StatusTooManyRequests, RetryAfter: 2 * time.Second, Message: "Too many requests"})
		_, _, err = c.Kubernetes.List(ctx, nil)
		e := apiError(t, err, http.StatusTooManyRequests)
		if e.Response.Header.Get("Retry-After") != "2" || e.Message != "Too many requests" {
			t.Errorf("Retry-After %q message %q", e.Response.Header.Get("Retry-After"), e.Message)
		}
	})
	t.Run("a read right after a create answers 404 once", func(t *testing.T) {
		d, c := start(t)
		seeded := d.SeedCluster(godo.KubernetesCluster{Name: "old", RegionSlug: "nyc1"})
		d.Inject(fakecloud.Fault{Method: http.MethodGet, Path: "/v2/kubernetes/clusters/", Status: http.StatusNotFound, After: http.MethodPost})
		get(t, c, seeded) // before any create the fault is not armed
		id := create(t, c, createRequest("web")).ID
		_, _, err := c.Kubernetes.Get(ctx, id)
		apiError(t, err, http.StatusNotFound)
		get(t, c, id)
	})
}

func TestTheListPagesAsGodoFollowsIt(t *testing.T) {
	ctx := context.Background()
	d, c := start(t)
	var want []string
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		d.SeedCluster(godo.KubernetesCluster{Name: name, RegionSlug: "nyc1"})
		want = append(want, name)
	}
	t.Run("two a page, followed as the provider's import does", func(t *testing.T) {
		var got []string
		pages := 0
		opts := godo.ListOptions{PerPage: 2}
		for {
			clusters, resp, err := c.Kubernetes.List(ctx, &opts)
			if err != nil {
				t.Fatalf("list page %d: %v", opts.Page, err)
			}
			pages++
			if resp.Meta == nil || resp.Meta.Total != 5 {
				t.Errorf("meta %+v, want a total of 5", resp.Meta)
			}
			for _, cl := range clusters {
				got = append(got, cl.Name)
			}
			if resp.Links == nil || resp.Links.IsLastPage() || pages > 5 {
				break
			}
			page, err := resp.Links.CurrentPage()
			if err != nil {
				t.Fatalf("current page: %v", err)
			}
			opts.Page = page + 1
		}
		if pages != 3 || !slices.Equal(got, want) {
			t.Errorf("%d pages of %v, want 3 pages of %v", pages, got, want)
		}
	})
	t.Run("one page when not asked for fewer", func(t *testing.T) {
		clusters, resp, err := c.Kubernetes.List(ctx, &godo.ListOptions{})
		if err != nil || len(clusters) != 5 || !resp.Links.IsLastPage() {
			t.Errorf("err %v, %d clusters, last page %v", err, len(clusters), resp.Links.IsLastPage())
		}
	})
}

func TestDeletingAClusterTakesItsPoolsAlong(t *testing.T) {
	ctx := context.Background()
	cases := map[string]func(*godo.Client, string) (*godo.Response, error){
		"delete": func(c *godo.Client, id string) (*godo.Response, error) { return c.Kubernetes.Delete(ctx, id) },
		"delete with associated resources": func(c *godo.Client, id string) (*godo.Response, error) {
			return c.Kubernetes.DeleteDangerous(ctx, id)
		},
	}
	for name, del := range cases {
		t.Run(name, func(t *testing.T) {
			d, c := start(t)
			id := create(t, c, createRequest("web")).ID
			res, _, err := c.Kubernetes.ListAssociatedResourcesForDeletion(ctx, id)
			if err != nil || res.Volumes == nil || len(res.Volumes)+len(res.LoadBalancers)+len(res.VolumeSnapshots) != 0 {
				t.Fatalf("associated resources %+v, %v; want empty lists", res, err)
			}
			if resp, err := del(c, id); err != nil || resp.StatusCode != http.StatusNoContent {
				t.Fatalf("delete: %v", err)
			}
			_, _, err = c.Kubernetes.Get(ctx, id)
			apiError(t, err, http.StatusNotFound)
			if _, ok := d.Cluster(id); ok || d.Pools(id) != nil {
				t.Error("the fake still holds the cluster or its pools")
			}
			_, err = del(c, id)
			apiError(t, err, http.StatusNotFound)
		})
	}
}

func TestSeededAndEditedClustersAreWholeAndCopiedOut(t *testing.T) {
	d := fakedo.New(t, token)
	const id = "6c0ffee0-4444-4444-8444-444444444444"
	if got := d.SeedCluster(godo.KubernetesCluster{ID: id, Name: "web", RegionSlug: "ams3", VersionSlug: "1.32.2-do.0",
		NodePools: []*godo.KubernetesNodePool{{Name: "workers", Size: "s-2vcpu-4gb", Count: 3, AutoScale: true, MinNodes: 1, MaxNodes: 5}}}); got != id {
		t.Fatalf("seeded as %s, want the given id", got)
	}
	cl, ok := d.ClusterNamed("web")
	if !ok || cl.Status.State != "running" || cl.MaintenancePolicy == nil || !slices.Contains(cl.Tags, "k8s:"+id) ||
		cl.VPCUUID != fakedo.DefaultVPC("ams3") {
		t.Fatalf("seeded cluster %+v, want running with a policy, DigitalOcean's tags and ams3's VPC", cl)
	}
	p, ok := d.PoolNamed(id, "workers")
	if !ok || p.ID == "" || len(p.Nodes) != 3 || !slices.Contains(p.Tags, "k8s:worker") {
		t.Fatalf("seeded pool %+v, want an id, 3 nodes and DigitalOcean's tags", p)
	}
	kept := p.Nodes[0].ID

	d.EditCluster(id, func(c *godo.KubernetesCluster) {
		c.NodePools[0].Count = 5
		c.Tags = append(c.Tags, "console")
	})
	p, _ = d.Pool(id, p.ID)
	if len(p.Nodes) != 5 || p.Nodes[0].ID != kept || p.Nodes[4].ID == "" || p.Nodes[4].Status.State != "running" {
		t.Errorf("an autoscaler's count of 5 made %d nodes", len(p.Nodes))
	}
	if cl, _ := d.Cluster(id); !slices.Contains(cl.Tags, "console") {
		t.Errorf("tags %v lack the console's", cl.Tags)
	}
	d.EditPool(id, p.ID, func(p *godo.KubernetesNodePool) { p.Count = 1 })
	if pools := d.Pools(id); len(pools) != 1 || len(pools[0].Nodes) != 1 || pools[0].Nodes[0].ID != kept {
		t.Errorf("after scaling to 1: %+v", pools)
	}

	cl, _ = d.Cluster(id)
	cl.NodePools[0].Name = "changed"
	cl.MaintenancePolicy.StartTime = "12:00"
	if again, _ := d.Cluster(id); again.NodePools[0].Name != "workers" || again.MaintenancePolicy.StartTime != "00:00" {
		t.Error("changing a returned cluster changed the fake")
	}
	if d.EditCluster("nope", func(*godo.KubernetesCluster) {}) || d.EditPool(id, "nope", func(*godo.KubernetesNodePool) {}) {
		t.Error("editing what does not exist reported success")
	}
}

func TestUnknownRoutesAreNotFound(t *testing.T) {
	d, c := start(t)
	id := d.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "nyc1"})
	for _, r := range []struct{ method, path string }{
		{http.MethodGet, "/v2/droplets"},
		{http.MethodPut, "/v2/kubernetes/clusters/" + id + "/node_pools/"},
		{http.MethodPost, "/v2/kubernetes/clusters/" + id + "/node_pools/x"},
		{http.MethodGet, "/v2/kubernetes/clusters/" + id + "/nothing"},
	} {
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			_, err := send(c, r.method, r.path, `{"count": 1}`)
			apiError(t, err, http.StatusNotFound)
		})
	}
}

func TestVPCsAreTheDefaultsAndTheSeededOnes(t *testing.T) {
	ctx := context.Background()
	d, c := start(t)
	const seeded = "9d9d9d9d-5555-4555-8555-555555555555"
	d.Account().SeedVPC(seeded, "sfo3")
	def, _, err := c.VPCs.Get(ctx, fakedo.DefaultVPC("nyc1"))
	if err != nil || !def.Default || def.RegionSlug != "nyc1" {
		t.Fatalf("nyc1's default VPC: %+v, %v", def, err)
	}
	if v, _, err := c.VPCs.Get(ctx, seeded); err != nil || v.RegionSlug != "sfo3" || v.Default {
		t.Fatalf("the seeded VPC: %+v, %v", v, err)
	}
	_, _, err = c.VPCs.Get(ctx, "0a0a0a0a-6666-4666-8666-666666666666")
	apiError(t, err, http.StatusNotFound)
	all, _, err := c.VPCs.List(ctx, &godo.ListOptions{PerPage: 200})
	if err != nil {
		t.Fatalf("list VPCs: %v", err)
	}
	var ids []string
	for _, v := range all {
		ids = append(ids, v.ID)
	}
	if !slices.Contains(ids, seeded) || !slices.Contains(ids, fakedo.DefaultVPC("atl1")) {
		t.Errorf("the list %v lacks the seeded or a default VPC", ids)
	}
	made, _, err := c.VPCs.Create(ctx, &godo.VPCCreateRequest{Name: "private", RegionSlug: "nyc1"})
	if err != nil {
		t.Fatalf("create VPC: %v", err)
	}
	req := createRequest("web")
	req.VPCUUID = made.ID
	if cl := create(t, c, req); cl.VPCUUID != made.ID {
		t.Errorf("the cluster is in %s, want the created VPC", cl.VPCUUID)
	}
}
