package standin

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/structpb"
)

const (
	doClusterType    = "digitalocean:index/kubernetesCluster:KubernetesCluster"
	doPoolType       = "digitalocean:index/kubernetesNodePool:KubernetesNodePool"
	civoClusterType  = "civo:index/kubernetesCluster:KubernetesCluster"
	civoPoolType     = "civo:index/kubernetesNodePool:KubernetesNodePool"
	civoFirewallType = "civo:index/firewall:Firewall"
)

// Inputs as the modules send them (iac/pulumi/*/module), trimmed to what the tests need.
func doClusterInputs() map[string]any {
	return map[string]any{
		"name": "prod", "region": "fra1", "version": "1.31.1-do.5", "ha": false, "autoUpgrade": false,
		"surgeUpgrade": true, "tags": []any{"clusterplane"},
		"maintenancePolicy": map[string]any{"day": "sunday", "startTime": "03:00"},
		"nodePool":          map[string]any{"name": "default", "size": "s-2vcpu-4gb", "nodeCount": 3.0, "labels": map[string]any{"team": "a"}},
	}
}

func doPoolInputs(clusterID string) map[string]any {
	return map[string]any{"clusterId": clusterID, "name": "workers", "size": "s-4vcpu-8gb", "nodeCount": 2.0,
		"labels": map[string]any{"team": "a"}}
}

func civoClusterInputs(firewallID string) map[string]any {
	return map[string]any{
		"name": "prod", "region": "LON1", "kubernetesVersion": "1.30.5-k3s1", "clusterType": "k3s", "cni": "flannel",
		"networkId": "net-1", "firewallId": firewallID, "tags": "clusterplane", "writeKubeconfig": true,
		"pools": map[string]any{"size": "g4s.kube.medium", "nodeCount": 3.0, "publicIpNodePool": false},
	}
}

func civoPoolInputs(clusterID string) map[string]any {
	return map[string]any{"clusterId": clusterID, "label": "workers", "size": "g4s.kube.large", "nodeCount": 2.0,
		"publicIpNodePool": false}
}

func civoFirewallInputs() map[string]any {
	return map[string]any{"name": "prod", "networkId": "net-1", "region": "LON1", "createDefaultRules": false,
		"ingressRules": []any{map[string]any{"label": "kubernetes-api", "protocol": "tcp", "portRange": "6443",
			"cidrs": []any{"0.0.0.0/0"}, "action": "allow"}}}
}

func newProvider(t *testing.T, pkg string) *Provider {
	t.Helper()
	p, err := New(pkg, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func wire(t *testing.T, m map[string]any) *structpb.Struct {
	t.Helper()
	s, err := marshal(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func unwire(t *testing.T, s *structpb.Struct) resource.PropertyMap {
	t.Helper()
	props, err := plugin.UnmarshalProperties(s, rpcOptions)
	if err != nil {
		t.Fatal(err)
	}
	return props
}

func plainOf(t *testing.T, s *structpb.Struct) map[string]any {
	t.Helper()
	m, _, err := plainProps(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// create creates a resource and returns its id and outputs.
func create(t *testing.T, p *Provider, typ string, inputs map[string]any) (string, map[string]any) {
	t.Helper()
	resp, err := p.Create(context.Background(), &pulumirpc.CreateRequest{Type: typ, Properties: wire(t, inputs)})
	if err != nil {
		t.Fatalf("create %s: %v", typ, err)
	}
	return resp.GetId(), plainOf(t, resp.GetProperties())
}

// deployed creates what a resource of typ needs (its cluster, its firewall) and the resource.
func deployed(t *testing.T, p *Provider, typ string) (id string, inputs, outputs map[string]any) {
	t.Helper()
	switch typ {
	case doClusterType:
		inputs = doClusterInputs()
	case doPoolType:
		cluster, _ := create(t, p, doClusterType, doClusterInputs())
		inputs = doPoolInputs(cluster)
	case civoFirewallType:
		inputs = civoFirewallInputs()
	case civoClusterType:
		fw, _ := create(t, p, civoFirewallType, civoFirewallInputs())
		inputs = civoClusterInputs(fw)
	case civoPoolType:
		fw, _ := create(t, p, civoFirewallType, civoFirewallInputs())
		cluster, _ := create(t, p, civoClusterType, civoClusterInputs(fw))
		inputs = civoPoolInputs(cluster)
	}
	id, outputs = create(t, p, typ, inputs)
	return id, inputs, outputs
}

func read(t *testing.T, p *Provider, typ, id string) *pulumirpc.ReadResponse {
	t.Helper()
	resp, err := p.Read(context.Background(), &pulumirpc.ReadRequest{Type: typ, Id: id})
	if err != nil {
		t.Fatalf("read %s: %v", id, err)
	}
	return resp
}

func packageOf(typ string) string { return strings.SplitN(typ, ":", 2)[0] }

func TestCreateThenReadReturnsWhatWasCreated(t *testing.T) {
	for _, typ := range []string{doClusterType, doPoolType, civoFirewallType, civoClusterType, civoPoolType} {
		t.Run(typ, func(t *testing.T) {
			p := newProvider(t, packageOf(typ))
			id, inputs, outputs := deployed(t, p, typ)
			if id == "" || outputs["id"] != id {
				t.Fatalf("create returned id %q and outputs id %v", id, outputs["id"])
			}
			got := read(t, p, typ, id)
			if got.GetId() != id {
				t.Fatalf("read id = %q, want %q", got.GetId(), id)
			}
			if outs := plainOf(t, got.GetProperties()); !equal(outs, outputs) {
				t.Errorf("read outputs differ from created ones:\n read    %v\n created %v", outs, outputs)
			}
			if ins := plainOf(t, got.GetInputs()); !equal(ins, inputs) {
				t.Errorf("read inputs differ from the sent ones:\n read %v\n sent %v", ins, inputs)
			}
		})
	}
}

func TestCreateComputesWhatTheCloudAssigns(t *testing.T) {
	tests := []struct {
		typ   string
		paths []string
	}{
		{doClusterType, []string{"clusterUrn", "endpoint", "ipv4Address", "status", "createdAt", "vpcUuid",
			"kubeConfigs", "nodePool.id", "nodePool.nodes", "nodePool.actualNodeCount"}},
		{doPoolType, []string{"nodes", "actualNodeCount"}},
		{civoClusterType, []string{"kubeconfig", "apiEndpoint", "masterIp", "dnsEntry", "createdAt", "status", "pools.instanceNames"}},
		{civoPoolType, []string{"instanceNames"}},
		{civoFirewallType, []string{"id"}},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			p := newProvider(t, packageOf(tt.typ))
			_, _, outputs := deployed(t, p, tt.typ)
			for _, path := range tt.paths {
				if v, ok := getPath(outputs, path); !ok || v == nil || v == "" {
					t.Errorf("output %s is missing", path)
				}
			}
		})
	}
	t.Run("the nodes follow the node count", func(t *testing.T) {
		p := newProvider(t, "digitalocean")
		_, _, outputs := deployed(t, p, doClusterType)
		if nodes, _ := getPath(outputs, "nodePool.nodes"); len(nodes.([]any)) != 3 {
			t.Errorf("nodePool.nodes = %v, want 3 nodes", nodes)
		}
	})
}

func TestCreateInAPreviewStoresNothingAndLeavesComputedOutputsUnknown(t *testing.T) {
	p := newProvider(t, "digitalocean")
	resp, err := p.Create(context.Background(), &pulumirpc.CreateRequest{Type: doClusterType, Properties: wire(t, doClusterInputs()), Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetId() != "" {
		t.Errorf("preview id = %q, want none", resp.GetId())
	}
	props := unwire(t, resp.GetProperties())
	if !props["endpoint"].IsComputed() {
		t.Errorf("endpoint = %v, want unknown", props["endpoint"])
	}
	if props["name"].StringValue() != "prod" {
		t.Errorf("name = %v, want the input", props["name"])
	}
	if cloud, _ := ReadCloud(p.Cloud); len(cloud) != 0 {
		t.Errorf("the preview stored %d resources", len(cloud))
	}
}

func TestDiffFollowsThePinnedProvidersFacts(t *testing.T) {
	tests := []struct {
		name     string
		typ      string
		change   func(news map[string]any)
		want     pulumirpc.DiffResponse_DiffChanges
		replaces []string
		detailed map[string]pulumirpc.PropertyDiff_Kind
	}{
		{
			name: "nothing sent changed, and outputs the module never sent are no change", typ: doClusterType,
			change: func(map[string]any) {}, want: pulumirpc.DiffResponse_DIFF_NONE,
		},
		{
			name: "a new default pool size replaces the DigitalOcean cluster (node_pool.size is ForceNew)", typ: doClusterType,
			change:   func(n map[string]any) { setPath(n, "nodePool.size", "s-4vcpu-8gb") },
			want:     pulumirpc.DiffResponse_DIFF_SOME,
			replaces: []string{"nodePool"},
			detailed: map[string]pulumirpc.PropertyDiff_Kind{"nodePool.size": pulumirpc.PropertyDiff_UPDATE_REPLACE},
		},
		{
			name: "a new node count updates the default pool in place", typ: doClusterType,
			change:   func(n map[string]any) { setPath(n, "nodePool.nodeCount", 5.0) },
			want:     pulumirpc.DiffResponse_DIFF_SOME,
			detailed: map[string]pulumirpc.PropertyDiff_Kind{"nodePool.nodeCount": pulumirpc.PropertyDiff_UPDATE},
		},
		{
			name: "a lower version replaces the DigitalOcean cluster", typ: doClusterType,
			change:   func(n map[string]any) { n["version"] = "1.30.9-do.0" },
			want:     pulumirpc.DiffResponse_DIFF_SOME,
			replaces: []string{"version"},
			detailed: map[string]pulumirpc.PropertyDiff_Kind{"version": pulumirpc.PropertyDiff_UPDATE_REPLACE},
		},
		{
			name: "a higher version upgrades the DigitalOcean cluster in place", typ: doClusterType,
			change:   func(n map[string]any) { n["version"] = "1.32.2-do.0" },
			want:     pulumirpc.DiffResponse_DIFF_SOME,
			detailed: map[string]pulumirpc.PropertyDiff_Kind{"version": pulumirpc.PropertyDiff_UPDATE},
		},
		{
			name: "a new region replaces the DigitalOcean cluster", typ: doClusterType,
			change:   func(n map[string]any) { n["region"] = "ams3" },
			want:     pulumirpc.DiffResponse_DIFF_SOME,
			replaces: []string{"region"},
			detailed: map[string]pulumirpc.PropertyDiff_Kind{"region": pulumirpc.PropertyDiff_UPDATE_REPLACE},
		},
		{
			name: "a maintenance policy no longer sent is no change (Optional+Computed: Terraform keeps it)", typ: doClusterType,
			change: func(n map[string]any) { delete(n, "maintenancePolicy") },
			want:   pulumirpc.DiffResponse_DIFF_NONE,
		},
		{
			name: "tags no longer sent are removed (Optional, not Computed)", typ: doClusterType,
			change:   func(n map[string]any) { delete(n, "tags") },
			want:     pulumirpc.DiffResponse_DIFF_SOME,
			detailed: map[string]pulumirpc.PropertyDiff_Kind{"tags": pulumirpc.PropertyDiff_DELETE},
		},
		{
			name: "a new size replaces a DigitalOcean node pool", typ: doPoolType,
			change:   func(n map[string]any) { n["size"] = "s-8vcpu-16gb" },
			want:     pulumirpc.DiffResponse_DIFF_SOME,
			replaces: []string{"size"},
			detailed: map[string]pulumirpc.PropertyDiff_Kind{"size": pulumirpc.PropertyDiff_UPDATE_REPLACE},
		},
		{
			name: "a cluster id not known yet replaces a DigitalOcean node pool", typ: doPoolType,
			change:   func(n map[string]any) { n["clusterId"] = unknown{} },
			want:     pulumirpc.DiffResponse_DIFF_SOME,
			replaces: []string{"clusterId"},
			detailed: map[string]pulumirpc.PropertyDiff_Kind{"clusterId": pulumirpc.PropertyDiff_UPDATE_REPLACE},
		},
		{
			name: "a label added to a DigitalOcean node pool updates it in place", typ: doPoolType,
			change:   func(n map[string]any) { setPath(n, "labels.tier", "gold") },
			want:     pulumirpc.DiffResponse_DIFF_SOME,
			detailed: map[string]pulumirpc.PropertyDiff_Kind{"labels.tier": pulumirpc.PropertyDiff_ADD},
		},
		{
			name: "a new network replaces the Civo firewall", typ: civoFirewallType,
			change:   func(n map[string]any) { n["networkId"] = "net-2" },
			want:     pulumirpc.DiffResponse_DIFF_SOME,
			replaces: []string{"networkId"},
			detailed: map[string]pulumirpc.PropertyDiff_Kind{"networkId": pulumirpc.PropertyDiff_UPDATE_REPLACE},
		},
		{
			// The real provider fails at apply here (change-effects.json: error-at-apply); its
			// Terraform facts say update, and the stand-in follows the facts only.
			name: "a new Civo pool size is an update, as the Terraform facts say", typ: civoClusterType,
			change:   func(n map[string]any) { setPath(n, "pools.size", "g4s.kube.large") },
			want:     pulumirpc.DiffResponse_DIFF_SOME,
			detailed: map[string]pulumirpc.PropertyDiff_Kind{"pools.size": pulumirpc.PropertyDiff_UPDATE},
		},
		{
			name: "a new firewall id updates the Civo cluster in place", typ: civoClusterType,
			change:   func(n map[string]any) { n["firewallId"] = "civofirewall-other" },
			want:     pulumirpc.DiffResponse_DIFF_SOME,
			detailed: map[string]pulumirpc.PropertyDiff_Kind{"firewallId": pulumirpc.PropertyDiff_UPDATE},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t, packageOf(tt.typ))
			id, inputs, outputs := deployed(t, p, tt.typ)
			news := cloneMap(inputs)
			tt.change(news)
			resp, err := p.Diff(context.Background(), &pulumirpc.DiffRequest{
				Type: tt.typ, Id: id, Olds: wire(t, outputs), OldInputs: wire(t, inputs), News: wire(t, news),
			})
			if err != nil {
				t.Fatal(err)
			}
			if resp.GetChanges() != tt.want {
				t.Errorf("changes = %v, want %v (detailed %v)", resp.GetChanges(), tt.want, resp.GetDetailedDiff())
			}
			if !equal(resp.GetReplaces(), tt.replaces) && len(resp.GetReplaces())+len(tt.replaces) > 0 {
				t.Errorf("replaces = %v, want %v", resp.GetReplaces(), tt.replaces)
			}
			if resp.GetDeleteBeforeReplace() {
				t.Error("deleteBeforeReplace is set")
			}
			if len(resp.GetDetailedDiff()) != len(tt.detailed) {
				t.Errorf("detailed diff = %v, want %v", resp.GetDetailedDiff(), tt.detailed)
			}
			for path, kind := range tt.detailed {
				if got := resp.GetDetailedDiff()[path]; got == nil || got.GetKind() != kind {
					t.Errorf("detailed diff of %s = %v, want %v", path, got, kind)
				}
			}
		})
	}
}

func TestReadSeesTheCloudEditedBehindItsBack(t *testing.T) {
	p := newProvider(t, "digitalocean")
	id, inputs, _ := deployed(t, p, doClusterType)

	// An autoscaler grows the default pool, and DigitalOcean applies a patch upgrade.
	cloud, err := ReadCloud(p.Cloud)
	if err != nil {
		t.Fatal(err)
	}
	r := cloud[id]
	r.Set("nodePool.nodeCount", 5)
	r.Set("version", "1.31.9-do.2")
	if err := WriteResource(p.Cloud, id, r); err != nil {
		t.Fatal(err)
	}

	got := read(t, p, doClusterType, id)
	outs, ins := plainOf(t, got.GetProperties()), plainOf(t, got.GetInputs())
	for _, m := range []map[string]any{outs, ins} {
		if v, _ := getPath(m, "nodePool.nodeCount"); v != 5.0 {
			t.Errorf("nodePool.nodeCount = %v, want 5", v)
		}
		if m["version"] != "1.31.9-do.2" {
			t.Errorf("version = %v, want the patch upgrade", m["version"])
		}
	}
	if nodes, _ := getPath(outs, "nodePool.nodes"); len(nodes.([]any)) != 5 {
		t.Errorf("the cloud runs %d nodes, want 5", len(nodes.([]any)))
	}
	if again := plainOf(t, read(t, p, doClusterType, id).GetProperties()); !equal(again, outs) {
		t.Error("a second read differs from the first: the nodes the cloud added were not kept")
	}

	// Deploying the old manifest after the refresh would undo both.
	resp, err := p.Diff(context.Background(), &pulumirpc.DiffRequest{
		Type: doClusterType, Id: id, Olds: got.GetProperties(), OldInputs: got.GetInputs(), News: wire(t, inputs),
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetDetailedDiff()["nodePool.nodeCount"] == nil || resp.GetDetailedDiff()["version"].GetKind() != pulumirpc.PropertyDiff_UPDATE_REPLACE {
		t.Errorf("diff after the drift = %v, want a node count update and a replacing (lower) version", resp.GetDetailedDiff())
	}

	t.Run("a resource deleted from the cloud reads as gone", func(t *testing.T) {
		if err := os.Remove(resourcePath(p.Cloud, id)); err != nil {
			t.Fatal(err)
		}
		if got := read(t, p, doClusterType, id); got.GetId() != "" {
			t.Errorf("read id = %q, want none", got.GetId())
		}
	})
}

func TestUpdateSendsOnlyWhatChanged(t *testing.T) {
	p := newProvider(t, "digitalocean")
	id, inputs, outputs := deployed(t, p, doClusterType)

	// The autoscaler grows the pool; no refresh follows, so the state still says 3.
	cloud, _ := ReadCloud(p.Cloud)
	cloud[id].Set("nodePool.nodeCount", 5)
	if err := WriteResource(p.Cloud, id, cloud[id]); err != nil {
		t.Fatal(err)
	}
	news := cloneMap(inputs)
	news["tags"] = []any{"clusterplane", "team-a"}
	resp, err := p.Update(context.Background(), &pulumirpc.UpdateRequest{
		Type: doClusterType, Id: id, Olds: wire(t, outputs), OldInputs: wire(t, inputs), News: wire(t, news),
	})
	if err != nil {
		t.Fatal(err)
	}
	outs := plainOf(t, resp.GetProperties())
	if !equal(outs["tags"], news["tags"]) {
		t.Errorf("tags = %v, want %v", outs["tags"], news["tags"])
	}
	if v, _ := getPath(outs, "nodePool.nodeCount"); v != 5.0 {
		t.Errorf("nodePool.nodeCount = %v, want the autoscaler's 5: the update did not change it", v)
	}
	if outs["endpoint"] != outputs["endpoint"] || outs["createdAt"] != outputs["createdAt"] {
		t.Error("the update changed what the cloud assigned once")
	}
	stored, _ := ReadCloud(p.Cloud)
	if !equal(stored[id].Outputs["tags"], news["tags"]) {
		t.Errorf("the cloud holds tags %v, want %v", stored[id].Outputs["tags"], news["tags"])
	}

	t.Run("a changed node count reaches the cloud with its nodes", func(t *testing.T) {
		olds, oldInputs := outs, news
		news := cloneMap(news)
		setPath(news, "nodePool.nodeCount", 2.0)
		resp, err := p.Update(context.Background(), &pulumirpc.UpdateRequest{
			Type: doClusterType, Id: id, Olds: wire(t, olds), OldInputs: wire(t, oldInputs), News: wire(t, news),
		})
		if err != nil {
			t.Fatal(err)
		}
		outs := plainOf(t, resp.GetProperties())
		if nodes, _ := getPath(outs, "nodePool.nodes"); len(nodes.([]any)) != 2 {
			t.Errorf("nodes = %v, want 2", nodes)
		}
	})
}

func TestDeleteRemovesTheResource(t *testing.T) {
	p := newProvider(t, "civo")
	id, _, _ := deployed(t, p, civoPoolType)
	if _, err := p.Delete(context.Background(), &pulumirpc.DeleteRequest{Type: civoPoolType, Id: id}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(resourcePath(p.Cloud, id)); !os.IsNotExist(err) {
		t.Errorf("the pool's file is still there: %v", err)
	}
	if _, err := p.Delete(context.Background(), &pulumirpc.DeleteRequest{Type: civoPoolType, Id: id}); err != nil {
		t.Errorf("deleting what is gone: %v", err)
	}
}

func TestCivoRefusesToDeleteAFirewallInUse(t *testing.T) {
	p := newProvider(t, "civo")
	_, inputs, _ := deployed(t, p, civoClusterType)
	fw := inputs["firewallId"].(string)
	_, err := p.Delete(context.Background(), &pulumirpc.DeleteRequest{Type: civoFirewallType, Id: fw})
	if err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("delete = %v, want a refusal", err)
	}
}

func TestANodePoolOfAClusterTheCloudLacksIsRefused(t *testing.T) {
	p := newProvider(t, "digitalocean")
	_, err := p.Create(context.Background(), &pulumirpc.CreateRequest{Type: doPoolType, Properties: wire(t, doPoolInputs("docluster-gone"))})
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("create = %v, want not found", err)
	}
}

func TestKubeconfigOutputsAreSecret(t *testing.T) {
	tests := []struct {
		typ, output string
	}{
		{doClusterType, "kubeConfigs"},
		{civoClusterType, "kubeconfig"},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			p := newProvider(t, packageOf(tt.typ))
			id, inputs, _ := deployed(t, p, tt.typ)
			created, err := p.Create(context.Background(), &pulumirpc.CreateRequest{Type: tt.typ, Properties: wire(t, inputs)})
			if err != nil {
				t.Fatal(err)
			}
			for name, s := range map[string]*structpb.Struct{
				"create": created.GetProperties(), "read": read(t, p, tt.typ, id).GetProperties(),
			} {
				if v := unwire(t, s)[resource.PropertyKey(tt.output)]; !v.IsSecret() {
					t.Errorf("%s: %s = %v, want a secret", name, tt.output, v)
				}
			}
		})
	}
	t.Run("an input sent as a secret stays secret in the outputs", func(t *testing.T) {
		p := newProvider(t, "digitalocean")
		props := resource.NewPropertyMapFromMap(doClusterInputs())
		props["name"] = resource.MakeSecret(props["name"])
		s, err := plugin.MarshalProperties(props, rpcOptions)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := p.Create(context.Background(), &pulumirpc.CreateRequest{Type: doClusterType, Properties: s})
		if err != nil {
			t.Fatal(err)
		}
		if v := unwire(t, resp.GetProperties())["name"]; !v.IsSecret() {
			t.Errorf("name = %v, want a secret", v)
		}
	})
}

func TestInvokesAnswerFromTheCloud(t *testing.T) {
	p := newProvider(t, "digitalocean")
	id, _, _ := deployed(t, p, doClusterType)
	tests := []struct {
		name    string
		tok     string
		args    map[string]any
		want    map[string]any
		wantErr string
	}{
		{
			name: "getKubernetesCluster finds the cluster by name", tok: getKubernetesCluster,
			args: map[string]any{"name": "prod"}, want: map[string]any{"id": id, "version": "1.31.1-do.5", "name": "prod"},
		},
		{
			name: "getKubernetesCluster fails in the provider's words when no cluster has the name", tok: getKubernetesCluster,
			args: map[string]any{"name": "nope"}, wantErr: "Unable to find cluster with name: nope",
		},
		{
			name: "getKubernetesVersions answers the newest slug of a minor line", tok: getKubernetesVersions,
			args: map[string]any{"versionPrefix": "1.31."}, want: map[string]any{"latestVersion": "1.31.9-do.2"},
		},
		{
			name: "getKubernetesVersions answers nothing for a minor line DigitalOcean does not offer", tok: getKubernetesVersions,
			args: map[string]any{"versionPrefix": "1.29."}, want: map[string]any{"latestVersion": ""},
		},
		{
			name: "a function the module does not call is refused", tok: "digitalocean:index/getDroplet:getDroplet",
			args: map[string]any{}, wantErr: "does not serve function",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := p.Invoke(context.Background(), &pulumirpc.InvokeRequest{Tok: tt.tok, Args: wire(t, tt.args)})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("invoke = %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := plainOf(t, resp.GetReturn())
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %v, want %v", k, got[k], v)
				}
			}
		})
	}
	t.Run("the offered versions come from the environment", func(t *testing.T) {
		t.Setenv(CloudEnv, t.TempDir())
		t.Setenv(DOVersionsEnv, "1.31.1-do.5,1.31.12-do.0,1.31.9-do.2")
		p, err := FromEnv("digitalocean")
		if err != nil {
			t.Fatal(err)
		}
		if got := p.kubernetesVersions(map[string]any{"versionPrefix": "1.31."})["latestVersion"]; got != "1.31.12-do.0" {
			t.Errorf("latestVersion = %v, want 1.31.12-do.0 (by number, not by text)", got)
		}
	})
}

func TestTheCloudDirectoryIsRequired(t *testing.T) {
	t.Setenv(CloudEnv, "")
	_, err := FromEnv("civo")
	if err == nil || !strings.Contains(err.Error(), CloudEnv) {
		t.Errorf("FromEnv = %v, want an error naming %s", err, CloudEnv)
	}
}

func TestAStandInServesOnlyItsOwnPackage(t *testing.T) {
	p := newProvider(t, "civo")
	_, err := p.Create(context.Background(), &pulumirpc.CreateRequest{Type: doClusterType, Properties: wire(t, doClusterInputs())})
	if err == nil {
		t.Error("the civo stand-in created a DigitalOcean cluster")
	}
	info, _ := p.GetPluginInfo(context.Background(), nil)
	if info.GetVersion() != "2.4.8" {
		t.Errorf("version = %q, want the pinned 2.4.8", info.GetVersion())
	}
}

func TestTheClockStampsCreation(t *testing.T) {
	p := newProvider(t, "digitalocean")
	p.Now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	_, _, outputs := deployed(t, p, doClusterType)
	if outputs["createdAt"] != "2026-01-02T03:04:05Z" {
		t.Errorf("createdAt = %v", outputs["createdAt"])
	}
}
