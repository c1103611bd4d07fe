package poolresource_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/poolresource"
	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo/pools"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/pulumi/componentprovider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
)

const (
	token   = "SENTINEL-civo-token-7c1d"
	region  = "fra1"
	cluster = "c0ffee00-cluster"
	urn     = "urn:pulumi:prod::pool::clusterplane:civo:KubernetesNodePool$clusterplane:civo:NodePool::workers"
)

// inputs are a pool's inputs as the module sends them, edited.
func inputs(edit ...func(resource.PropertyMap)) resource.PropertyMap {
	m := resource.PropertyMap{
		"clusterId":        resource.NewProperty(cluster),
		"nodePoolName":     resource.NewProperty("workers"),
		"region":           resource.NewProperty(region),
		"size":             resource.NewProperty("g4s.kube.medium"),
		"nodeCount":        resource.NewProperty(3.0),
		"autoScale":        resource.NewProperty(false),
		"publicIpNodePool": resource.NewProperty(false),
		"labels":           resource.NewProperty(resource.PropertyMap{"team": resource.NewProperty("platform")}),
		"taints": resource.NewProperty([]resource.PropertyValue{resource.NewProperty(resource.PropertyMap{
			"key": resource.NewProperty("dedicated"), "value": resource.NewProperty("batch"), "effect": resource.NewProperty("NoSchedule"),
		})}),
	}
	for _, e := range edit {
		e(m)
	}
	return m
}

func set(key string, v any) func(resource.PropertyMap) {
	return func(m resource.PropertyMap) { m[resource.PropertyKey(key)] = resource.NewPropertyValue(v) }
}

func unset(key string) func(resource.PropertyMap) {
	return func(m resource.PropertyMap) { delete(m, resource.PropertyKey(key)) }
}

// civoState is what pulumi-civo 2.4.8 kept for the same pool: `label` for the name, no region.
func civoState() resource.PropertyMap {
	m := inputs(unset("nodePoolName"), unset("region"), unset("autoScale"), set("label", "workers"))
	m["instanceNames"] = resource.NewProperty([]resource.PropertyValue{resource.NewProperty("n1")})
	return m
}

func TestDiffSaysWhatEachChangeDoesToThePool(t *testing.T) {
	r := &poolresource.Resource{}
	tests := []struct {
		name               string
		olds, news         resource.PropertyMap
		updates, replaces  []string
		deleteBeforeCreate bool
	}{
		{name: "nothing changed is no change", olds: inputs(), news: inputs()},
		{name: "scaling 3 to 5 updates in place", olds: inputs(), news: inputs(set("nodeCount", 5.0)),
			updates: []string{"nodeCount"}},
		{name: "with autoScale the autoscaler's count is no change", olds: inputs(set("autoScale", true), set("nodeCount", 7.0)),
			news: inputs(set("autoScale", true))},
		{name: "turning autoScale on is an update of the state only", olds: inputs(), news: inputs(set("autoScale", true), set("nodeCount", 9.0)),
			updates: []string{"autoScale"}},
		{name: "clearing the labels updates in place", olds: inputs(), news: inputs(set("labels", resource.PropertyMap{})),
			updates: []string{"labels"}},
		{name: "clearing the taints updates in place", olds: inputs(), news: inputs(set("taints", []resource.PropertyValue{})),
			updates: []string{"taints"}},
		{name: "Civo's own labels are not a change", news: inputs(),
			olds: inputs(set("labels", resource.PropertyMap{"team": resource.NewProperty("platform"),
				"kubernetes.civo.com/node-pool": resource.NewProperty("workers")}))},
		{name: "a new size replaces the pool, deleting it first: its name is its id in the cluster",
			olds: inputs(), news: inputs(set("size", "g4s.kube.large")),
			updates: []string{"size"}, replaces: []string{"size"}, deleteBeforeCreate: true},
		{name: "public IPs replace the pool, deleting it first", olds: inputs(), news: inputs(set("publicIpNodePool", true)),
			updates: []string{"publicIpNodePool"}, replaces: []string{"publicIpNodePool"}, deleteBeforeCreate: true},
		{name: "a new name replaces the pool, the new one created first", olds: inputs(), news: inputs(set("nodePoolName", "batch")),
			updates: []string{"nodePoolName"}, replaces: []string{"nodePoolName"}},
		{name: "another cluster replaces the pool, the new one created first", olds: inputs(), news: inputs(set("clusterId", "other")),
			updates: []string{"clusterId"}, replaces: []string{"clusterId"}},
		{name: "another region replaces the pool, the new one created first", olds: inputs(), news: inputs(set("region", "lon1")),
			updates: []string{"region"}, replaces: []string{"region"}},
		{name: "a cluster id known only after deployment may replace the pool", olds: inputs(),
			news:    inputs(func(m resource.PropertyMap) { m["clusterId"] = resource.MakeComputed(resource.NewProperty("")) }),
			updates: []string{"clusterId"}, replaces: []string{"clusterId"}},
		{name: "the civo provider's state of the same pool is no change", olds: civoState(), news: inputs()},
		{name: "the civo provider's state scaled is an update", olds: civoState(), news: inputs(set("nodeCount", 4.0)),
			updates: []string{"nodeCount"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := r.Diff(tt.olds, tt.news)
			if !slices.Equal(c.Updates, tt.updates) || !slices.Equal(c.Replaces, tt.replaces) || c.DeleteBeforeReplace != tt.deleteBeforeCreate {
				t.Errorf("Diff = updates %v replaces %v deleteBeforeReplace %v, want %v %v %v",
					c.Updates, c.Replaces, c.DeleteBeforeReplace, tt.updates, tt.replaces, tt.deleteBeforeCreate)
			}
		})
	}
}

func TestCheckRefusesWhatCivoWouldRefuseOrNeverConverges(t *testing.T) {
	r := &poolresource.Resource{}
	tests := []struct {
		name string
		news resource.PropertyMap
		want []string
	}{
		{name: "a valid pool", news: inputs()},
		{name: "a cluster id known only after deployment", news: inputs(func(m resource.PropertyMap) {
			m["clusterId"] = resource.MakeComputed(resource.NewProperty(""))
		})},
		{name: "no cluster, name or size", news: inputs(unset("clusterId"), unset("nodePoolName"), unset("size")),
			want: []string{"clusterId", "nodePoolName", "size"}},
		{name: "no nodes", news: inputs(set("nodeCount", 0.0)), want: []string{"nodeCount"}},
		{name: "a label Civo sets itself", news: inputs(set("labels", resource.PropertyMap{"kubernetes.civo.com/x": resource.NewProperty("y")})),
			want: []string{"labels"}},
		{name: "a taint effect Kubernetes does not have", news: inputs(set("taints", []resource.PropertyValue{resource.NewProperty(resource.PropertyMap{
			"key": resource.NewProperty("k"), "effect": resource.NewProperty("Sometimes")})})), want: []string{"taints[0].effect"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := []string{}
			for _, f := range r.Check(tt.news) {
				got = append(got, f.Property)
			}
			if !slices.Equal(got, append([]string{}, tt.want...)) {
				t.Errorf("Check failures on %v, want %v", got, tt.want)
			}
		})
	}
}

// server is the plugin's provider serving the pool, configured as the module's provider is,
// talking to a loopback Civo API.
func server(t *testing.T, f *fakecivo.Civo) *componentprovider.Server {
	t.Helper()
	s := componentprovider.New(nil, "0.0.0", nil, nil, poolresource.Custom(
		pools.WithPollInterval(time.Millisecond), pools.WithRetry(cloudapi.Backoff(2, time.Millisecond))))
	if _, err := s.Configure(context.Background(), &pulumirpc.ConfigureRequest{Variables: map[string]string{
		"clusterplane:config:civoToken": token, "clusterplane:config:civoApiUrl": f.URL(),
	}}); err != nil {
		t.Fatal(err)
	}
	return s
}

func pb(t *testing.T, m resource.PropertyMap) *structpb.Struct {
	t.Helper()
	st, err := plugin.MarshalProperties(m, plugin.MarshalOptions{KeepUnknowns: true})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func props(t *testing.T, st *structpb.Struct) resource.PropertyMap {
	t.Helper()
	m, err := plugin.UnmarshalProperties(st, plugin.MarshalOptions{KeepUnknowns: true})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestThePoolIsCreatedScaledRelabelledClearedRefreshedAndDeletedWithTheRequestsCivoExpects(t *testing.T) {
	ctx := context.Background()
	f := fakecivo.New(t, token, region, cluster)
	s := server(t, f)

	created, err := s.Create(ctx, &pulumirpc.CreateRequest{Urn: urn, Properties: pb(t, inputs())})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if created.GetId() != "workers" {
		t.Errorf("id = %q, want the pool's name", created.GetId())
	}
	if body := f.LastBody(t, "POST"); body["id"] != "workers" || body["count"] != 3.0 || body["region"] != region {
		t.Errorf("create body = %v", body)
	}
	state := props(t, created.GetProperties())
	if n := len(state["instanceNames"].ArrayValue()); n != 3 {
		t.Errorf("instanceNames has %d names, want 3", n)
	}

	// Scale 3 to 5 to 2, then relabel, then clear labels and taints: each an in-place update.
	for _, step := range []struct {
		name  string
		news  resource.PropertyMap
		check func(body map[string]any, pool civogo.KubernetesPool) string
	}{
		{"scale to 5", inputs(set("nodeCount", 5.0)), func(b map[string]any, p civogo.KubernetesPool) string {
			if b["count"] != 5.0 || b["labels"] != nil || b["taints"] != nil || p.Count != 5 {
				return fmt.Sprintf("body %v, count %d", b, p.Count)
			}
			return ""
		}},
		{"scale to 2", inputs(set("nodeCount", 2.0)), func(b map[string]any, p civogo.KubernetesPool) string {
			if b["count"] != 2.0 || p.Count != 2 {
				return fmt.Sprintf("body %v, count %d", b, p.Count)
			}
			return ""
		}},
		{"relabel", inputs(set("nodeCount", 2.0), set("labels", resource.PropertyMap{"team": resource.NewProperty("data")})),
			func(b map[string]any, p civogo.KubernetesPool) string {
				if b["count"] != nil || fmt.Sprint(b["labels"]) != "map[team:data]" || p.Labels["team"] != "data" {
					return fmt.Sprintf("body %v, labels %v", b, p.Labels)
				}
				return ""
			}},
		{"clear labels and taints", inputs(set("nodeCount", 2.0), set("labels", resource.PropertyMap{}), set("taints", []resource.PropertyValue{})),
			func(b map[string]any, p civogo.KubernetesPool) string {
				if fmt.Sprint(b["labels"]) != "map[]" || fmt.Sprint(b["taints"]) != "[]" || p.Labels["team"] != "" || len(p.Taints) != 0 {
					return fmt.Sprintf("body %v, labels %v taints %v", b, p.Labels, p.Taints)
				}
				return ""
			}},
	} {
		diff, err := s.Diff(ctx, &pulumirpc.DiffRequest{Urn: urn, Id: "workers", Olds: pb(t, state), News: pb(t, step.news)})
		if err != nil {
			t.Fatalf("%s: Diff: %v", step.name, err)
		}
		if diff.GetChanges() != pulumirpc.DiffResponse_DIFF_SOME || len(diff.GetReplaces()) != 0 {
			t.Fatalf("%s: Diff = %v, want an update in place", step.name, diff)
		}
		updated, err := s.Update(ctx, &pulumirpc.UpdateRequest{Urn: urn, Id: "workers", Olds: pb(t, state), News: pb(t, step.news)})
		if err != nil {
			t.Fatalf("%s: Update: %v", step.name, err)
		}
		state = props(t, updated.GetProperties())
		pool, _ := f.Pool(cluster, "workers")
		if why := step.check(f.LastBody(t, "PUT"), pool); why != "" {
			t.Errorf("%s: %s", step.name, why)
		}
		if len(f.Requests("POST")) != 1 || len(f.Requests("DELETE")) != 0 {
			t.Fatalf("%s created or deleted a pool", step.name)
		}
	}
	if labels := state["labels"].ObjectValue(); len(labels) != 0 {
		t.Errorf("state labels = %v, want none: Civo's own are not the user's", labels)
	}

	// Scaled behind the plugin's back: a refresh reads the new count, and only that.
	f.Scale(cluster, "workers", 4)
	read, err := s.Read(ctx, &pulumirpc.ReadRequest{Urn: urn, Id: "workers", Properties: pb(t, state), Inputs: pb(t, inputs())})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	live := props(t, read.GetProperties())
	if live["nodeCount"].NumberValue() != 4 || len(live["labels"].ObjectValue()) != 0 {
		t.Errorf("refreshed state = %v, want 4 nodes and no labels", live)
	}

	if _, err := s.Delete(ctx, &pulumirpc.DeleteRequest{Urn: urn, Id: "workers", Properties: pb(t, live)}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, ok := f.Pool(cluster, "workers"); ok {
		t.Error("the pool still exists")
	}
	// Gone, it reads as gone: Pulumi drops it from the state.
	read, err = s.Read(ctx, &pulumirpc.ReadRequest{Urn: urn, Id: "workers", Properties: pb(t, live)})
	if err != nil || read.GetId() != "" {
		t.Errorf("Read of a deleted pool = %q, %v; want no id and no error", read.GetId(), err)
	}
}

func TestAPoolIsImportedByClusterAndName(t *testing.T) {
	f := fakecivo.New(t, token, region, cluster)
	f.Seed(cluster, civogo.KubernetesPool{ID: "workers", Size: "g4s.kube.medium", Count: 2})
	s := server(t, f)
	read, err := s.Read(context.Background(), &pulumirpc.ReadRequest{Urn: urn, Id: cluster + ":workers",
		Inputs: pb(t, resource.PropertyMap{"region": resource.NewProperty(region)})})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	in := props(t, read.GetInputs())
	if read.GetId() != "workers" || in["clusterId"].StringValue() != cluster || in["nodeCount"].NumberValue() != 2 ||
		in["size"].StringValue() != "g4s.kube.medium" {
		t.Errorf("imported %q with inputs %v", read.GetId(), in)
	}
	if _, err := s.Read(context.Background(), &pulumirpc.ReadRequest{Urn: urn, Id: "workers"}); err == nil ||
		!strings.Contains(err.Error(), "CLUSTER_ID:POOL_NAME") {
		t.Errorf("Read without a cluster = %v, want an error saying how to import", err)
	}
}

func TestAPoolWhoseNodesNeverRunIsKeptInTheStateAndTheErrorNamesPoolAndClusterNotTheToken(t *testing.T) {
	f := fakecivo.New(t, token, region, cluster)
	f.NeverReady = true
	f.EchoAuth = true
	s := server(t, f)
	_, err := s.Create(context.Background(), &pulumirpc.CreateRequest{Urn: urn, Properties: pb(t, inputs()), Timeout: 0.05})
	if err == nil {
		t.Fatal("Create succeeded")
	}
	st, _ := status.FromError(err)
	var initFailed *pulumirpc.ErrorResourceInitFailed
	for _, d := range st.Details() {
		if e, ok := d.(*pulumirpc.ErrorResourceInitFailed); ok {
			initFailed = e
		}
	}
	if initFailed == nil || initFailed.GetId() != "workers" {
		t.Errorf("error details = %v, want the pool kept in the state as created but not ready", st.Details())
	}
	for _, want := range []string{`"workers"`, cluster, "timed out"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %s: %v", want, err)
		}
	}

	f.NeverReady = false
	f.Fail("", 500, 10)
	_, err = s.Create(context.Background(), &pulumirpc.CreateRequest{Urn: urn, Properties: pb(t, inputs(set("nodePoolName", "other")))})
	if err == nil || strings.Contains(err.Error(), token) || !strings.Contains(err.Error(), `"other"`) || !strings.Contains(err.Error(), cluster) {
		t.Errorf("error = %v, want the pool and cluster named and no token", err)
	}
}

func TestWithoutATokenNothingIsSentAndTheErrorSaysWhereTheTokenGoes(t *testing.T) {
	t.Setenv("CIVO_TOKEN", "")
	f := fakecivo.New(t, token, region, cluster)
	t.Setenv("CIVO_API_URL", f.URL())
	s := componentprovider.New(nil, "0.0.0", nil, nil, poolresource.Custom())
	if _, err := s.Configure(context.Background(), &pulumirpc.ConfigureRequest{Variables: map[string]string{}}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Create(context.Background(), &pulumirpc.CreateRequest{Urn: urn, Properties: pb(t, inputs())})
	if err == nil || !strings.Contains(err.Error(), "providerConfig.apiToken or CIVO_TOKEN") {
		t.Errorf("Create without a token = %v", err)
	}
	if n := len(f.Requests("")); n != 0 {
		t.Errorf("%d requests sent without a token", n)
	}
}

// Promise: environment-token-only-to-its-own-api
func TestAConfiguredAPIURLNeverGetsTheEnvironmentsToken(t *testing.T) {
	t.Setenv("CIVO_TOKEN", token)
	t.Setenv("CIVO_API_URL", "")
	f := fakecivo.New(t, token, region, cluster)
	s := componentprovider.New(nil, "0.0.0", nil, nil, poolresource.Custom())
	if _, err := s.Configure(context.Background(), &pulumirpc.ConfigureRequest{Variables: map[string]string{
		"clusterplane:config:civoApiUrl": f.URL()}}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Create(context.Background(), &pulumirpc.CreateRequest{Urn: urn, Properties: pb(t, inputs())})
	if err == nil || !strings.Contains(err.Error(), "civoApiUrl") || !strings.Contains(err.Error(), "needs its own apiToken") ||
		strings.Contains(err.Error(), token) {
		t.Errorf("Create with CIVO_TOKEN and a configured civoApiUrl = %v, want a refusal naming civoApiUrl", err)
	}
	if n := len(f.Requests("")); n != 0 {
		t.Errorf("%d requests sent to the configured URL with the environment's token", n)
	}
}

// changed is a different value of the same type.
func changed(v resource.PropertyValue) resource.PropertyValue {
	switch {
	case v.IsString():
		return resource.NewProperty(v.StringValue() + "-changed")
	case v.IsNumber():
		return resource.NewProperty(v.NumberValue() + 2)
	case v.IsBool():
		return resource.NewProperty(!v.BoolValue())
	case v.IsObject():
		return resource.NewProperty(resource.PropertyMap{})
	case v.IsArray():
		return resource.NewProperty([]resource.PropertyValue{})
	}
	return v
}

// The effects table (what `diff` and `explain` say) against what the plugin does: each row that
// sends a property of the pool says Replace exactly when the plugin's Diff replaces the pool for a
// change of it, and the property's fact says ForceNew exactly then too.
func TestEveryCivoPoolRowAndFactSaysWhatThePluginsDiffDoes(t *testing.T) {
	r := &poolresource.Resource{}
	kind := registry.Kinds().Table("CivoKubernetesNodePool")
	rows := 0
	for _, row := range kind.Rows {
		resourceName, attribute, _ := strings.Cut(row.Attribute, ".")
		if resourceName != "clusterplane_civo_node_pool" {
			continue
		}
		rows++
		t.Run(row.Path, func(t *testing.T) {
			property := ""
			for key := range inputs() {
				if effects.TerraformName(string(key)) == attribute {
					property = string(key)
				}
			}
			if property == "" {
				t.Fatalf("%s names no property of the pool", row.Attribute)
			}
			news := inputs()
			news[resource.PropertyKey(property)] = changed(news[resource.PropertyKey(property)])
			c := r.Diff(inputs(), news)
			replaces := slices.Contains(c.Replaces, property)
			if !slices.Contains(c.Updates, property) {
				t.Fatalf("changing %s is no change to the plugin", property)
			}
			// A change refused because its replacement fails at apply (a region the cluster is not
			// in) is one the plugin plans as a replacement.
			planned := row.Effect == effects.Replace || row.Effect == effects.Refused && row.Refusal == effects.FailsAtApply
			if planned != replaces {
				t.Errorf("the table says %s (%s), the plugin replaces: %v", row.Effect, row.Refusal, replaces)
			}
			if fact := kind.Attributes[row.Attribute]; fact.ForceNew != replaces {
				t.Errorf("ForceNew = %v, the plugin replaces: %v", fact.ForceNew, replaces)
			}
		})
	}
	if rows < 8 {
		t.Errorf("%d rows send the plugin's pool, want every field the module sends", rows)
	}
}
