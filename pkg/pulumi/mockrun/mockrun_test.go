package mockrun_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

const (
	thingType    = "test:index:Thing"
	providerType = "pulumi:providers:test"
	groupType    = "test:index:Group"
	// password is a secret input and output of the test program: it must never be rendered.
	password = "hunter2-SENTINEL"
)

// thing is a custom resource whose endpoint the cloud computes.
type thing struct {
	pulumi.CustomResourceState
	Size     pulumi.StringOutput `pulumi:"size"`
	Endpoint pulumi.StringOutput `pulumi:"endpoint"`
	Password pulumi.StringOutput `pulumi:"password"`
}

type testProvider struct{ pulumi.ProviderResourceState }

type group struct{ pulumi.ResourceState }

// program registers a provider, a component, a thing under the component with every option the
// plan records, a second thing it depends on, and exports plain, computed and secret outputs.
func program(ctx *pulumi.Context) error {
	var prov testProvider
	if err := ctx.RegisterResource(providerType, "prov", pulumi.Map{
		"token": pulumi.ToSecret(pulumi.String(password)),
	}, &prov); err != nil {
		return err
	}
	var g group
	if err := ctx.RegisterComponentResource(groupType, "g", &g); err != nil {
		return err
	}
	var base thing
	if err := ctx.RegisterResource(thingType, "base", pulumi.Map{"size": pulumi.String("small")}, &base,
		pulumi.Parent(&g), pulumi.Provider(&prov)); err != nil {
		return err
	}
	var main thing
	if err := ctx.RegisterResource(thingType, "main", pulumi.Map{
		"size":     pulumi.String("large"),
		"password": pulumi.ToSecret(pulumi.String(password)),
		"tags":     pulumi.ToStringArray([]string{"a", "b"}),
		"baseId":   base.ID(),
	}, &main,
		pulumi.Parent(&g), pulumi.Provider(&prov), pulumi.DependsOn([]pulumi.Resource{&base}),
		pulumi.IgnoreChanges([]string{"size"}), pulumi.Protect(true),
		pulumi.AdditionalSecretOutputs([]string{"endpoint"})); err != nil {
		return err
	}
	ctx.Export("id", main.ID())
	ctx.Export("size", main.Size)
	ctx.Export("endpoint", main.Endpoint)
	ctx.Export("password", main.Password)
	ctx.Export("endpoint_secret", pulumi.ToSecret(main.Endpoint))
	ctx.Export("literal", pulumi.String("fixed"))
	return nil
}

// endpointState is what the cloud computes for a thing.
func endpointState(typ, name string, _ resource.PropertyMap) resource.PropertyMap {
	if typ != thingType {
		return nil
	}
	return resource.PropertyMap{"endpoint": resource.NewProperty("https://" + name + ".example")}
}

func run(t *testing.T, opts mockrun.Options) *mockrun.Result {
	t.Helper()
	p, err := mockrun.Run(program, opts)
	if err != nil {
		t.Fatalf("mockrun.Run: %v", err)
	}
	return p
}

func TestRunRecordsEveryResourceWithItsOptions(t *testing.T) {
	p := run(t, mockrun.Options{Preview: true})
	var got []string
	for _, r := range p.Resources {
		got = append(got, r.Type+"::"+r.Name)
	}
	want := []string{providerType + "::prov", groupType + "::g", thingType + "::base", thingType + "::main"}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("resources = %v, want %v sorted by type and name", got, want)
	}
	main, _ := p.Find(thingType, "main")
	checks := []struct {
		what      string
		got, want any
	}{
		{"provider", main.Provider, providerType + "::prov"},
		{"parent", main.Parent, groupType + "::g"},
		{"dependsOn", main.DependsOn, []string{thingType + "::base"}},
		{"ignoreChanges", main.IgnoreChanges, []string{"size"}},
		{"protect", main.Protect, true},
		{"additionalSecretOutputs", main.AdditionalSecretOutputs, []string{"endpoint"}},
		{"inputs.size", main.Inputs["size"], "large"},
		{"inputs.password", main.Inputs["password"], "[secret]"},
		{"inputs.baseId, unknown in a preview", main.Inputs["baseId"], "[unknown]"},
	}
	for _, c := range checks {
		if !equalJSON(c.got, c.want) {
			t.Errorf("main %s = %#v, want %#v", c.what, c.got, c.want)
		}
	}
	g, _ := p.Find(groupType, "g")
	if g.Parent != "pulumi:pulumi:Stack::"+mockrun.Project+"-"+mockrun.Stack {
		t.Errorf("component parent = %q, want the stack", g.Parent)
	}
	if base, _ := p.Find(thingType, "base"); base.Protect || len(base.DependsOn) != 0 || len(base.IgnoreChanges) != 0 {
		t.Errorf("base has options it was not given: %+v", base)
	}
}

func TestPreviewLeavesComputedValuesUnknown(t *testing.T) {
	p := run(t, mockrun.Options{Preview: true, State: endpointState})
	for _, name := range []string{"id", "endpoint", "endpoint_secret"} {
		if o := p.Outputs[name]; o.Known || o.Value != nil {
			t.Errorf("output %s = %+v in a preview, want unknown", name, o)
		}
	}
	for name, want := range map[string]string{"size": "large", "literal": "fixed", "password": password} {
		if o := p.Outputs[name]; !o.Known || o.Value != want {
			t.Errorf("output %s = %+v in a preview, want the known input %q", name, o, want)
		}
	}
}

func TestADeploymentAnswersIdsAsNameDashIdAndTheStateOfTheCloud(t *testing.T) {
	p := run(t, mockrun.Options{State: endpointState})
	for name, want := range map[string]string{
		"id":              "main-id",
		"endpoint":        "https://main.example",
		"endpoint_secret": "https://main.example",
		"size":            "large",
		"literal":         "fixed",
	} {
		// An id is a pulumi.ID, the rest are strings.
		if o := p.Outputs[name]; !o.Known || fmt.Sprint(o.Value) != want {
			t.Errorf("output %s = %+v, want known %q", name, o, want)
		}
	}
	main, _ := p.Find(thingType, "main")
	if main.Provider != providerType+"::prov" {
		t.Errorf("provider = %q, want %s::prov", main.Provider, providerType)
	}
	if main.Inputs["baseId"] != "base-id" {
		t.Errorf("input baseId = %v, want the id of base", main.Inputs["baseId"])
	}
}

func TestOutputsRecordWhetherTheyAreSecret(t *testing.T) {
	for _, preview := range []bool{true, false} {
		p := run(t, mockrun.Options{Preview: preview, State: endpointState})
		for name, want := range map[string]bool{
			"password": true, "endpoint_secret": true, "endpoint": false, "size": false, "literal": false, "id": false,
		} {
			if got := p.Outputs[name].Secret; got != want {
				t.Errorf("preview=%t: output %s secret = %t, want %t", preview, name, got, want)
			}
		}
	}
}

func TestWriteJSONHasExactlyTheDocumentedShape(t *testing.T) {
	p := run(t, mockrun.Options{Preview: true})
	var buf bytes.Buffer
	if err := mockrun.WriteJSON(&buf, p); err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("WriteJSON wrote invalid JSON: %v\n%s", err, buf.String())
	}
	if got := slices.Sorted(maps.Keys(doc)); !slices.Equal(got, []string{"outputs", "resources"}) {
		t.Fatalf("top-level keys = %v, want [outputs resources]", got)
	}
	var resources []map[string]any
	if err := json.Unmarshal(doc["resources"], &resources); err != nil {
		t.Fatalf("resources is not a list of objects: %v", err)
	}
	if len(resources) != len(p.Resources) {
		t.Fatalf("%d resources rendered, want %d", len(resources), len(p.Resources))
	}
	wantKeys := []string{"additionalSecretOutputs", "dependsOn", "ignoreChanges", "inputs", "name", "parent", "protect", "provider", "type"}
	for _, r := range resources {
		if got := slices.Sorted(maps.Keys(r)); !slices.Equal(got, wantKeys) {
			t.Errorf("resource %v %v has keys %v, want %v", r["type"], r["name"], got, wantKeys)
		}
	}
	main := resources[slices.IndexFunc(resources, func(r map[string]any) bool { return r["name"] == "main" })]
	for key, want := range map[string]any{
		"type":                    thingType,
		"provider":                providerType + "::prov",
		"parent":                  groupType + "::g",
		"dependsOn":               []any{thingType + "::base"},
		"ignoreChanges":           []any{"size"},
		"protect":                 true,
		"additionalSecretOutputs": []any{"endpoint"},
		"inputs":                  map[string]any{"size": "large", "password": "[secret]", "tags": []any{"a", "b"}, "baseId": "[unknown]"},
	} {
		if !equalJSON(main[key], want) {
			t.Errorf("main %s = %#v, want %#v", key, main[key], want)
		}
	}

	var outputs map[string]map[string]any
	if err := json.Unmarshal(doc["outputs"], &outputs); err != nil {
		t.Fatalf("outputs is not an object of objects: %v", err)
	}
	want := map[string]map[string]any{
		"id":              {"secret": false, "value": nil},
		"endpoint":        {"secret": false, "value": nil},
		"endpoint_secret": {"secret": true, "value": "[secret]"},
		"size":            {"secret": false, "value": "large"},
		"password":        {"secret": true, "value": "[secret]"},
		"literal":         {"secret": false, "value": "fixed"},
	}
	if !equalJSON(outputs, want) {
		t.Errorf("outputs = %v, want %v", outputs, want)
	}
}

func TestWriteJSONRendersAnEmptyPlanWithEmptyListAndObject(t *testing.T) {
	var buf bytes.Buffer
	if err := mockrun.WriteJSON(&buf, &mockrun.Result{}); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if !equalJSON(doc, map[string]any{"resources": []any{}, "outputs": map[string]any{}}) {
		t.Errorf("empty plan rendered as %s", buf.String())
	}
}

func TestWriteJSONListsAliasesOnlyForResourcesThatHaveThem(t *testing.T) {
	p := &mockrun.Result{Resources: []mockrun.Resource{
		{Type: thingType, Name: "old", Aliases: []string{"noParent"}},
		{Type: thingType, Name: "new"},
	}}
	var buf bytes.Buffer
	if err := mockrun.WriteJSON(&buf, p); err != nil {
		t.Fatal(err)
	}
	var doc struct{ Resources []map[string]any }
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.Resources[0]["aliases"]; !equalJSON(got, []any{"noParent"}) {
		t.Errorf("aliases of old = %v, want [noParent]", got)
	}
	if _, ok := doc.Resources[1]["aliases"]; ok {
		t.Errorf("a resource without aliases rendered an aliases key: %v", doc.Resources[1])
	}
}

func TestRenderingNeverShowsASecretValue(t *testing.T) {
	for _, preview := range []bool{true, false} {
		p := run(t, mockrun.Options{Preview: preview})
		if p.Outputs["password"].Value != password {
			t.Fatalf("preview=%t: the plan lost the secret value the test needs: %+v", preview, p.Outputs["password"])
		}
		for name, write := range map[string]func(io.Writer, *mockrun.Result) error{"json": mockrun.WriteJSON, "text": mockrun.WriteText} {
			var buf bytes.Buffer
			if err := write(&buf, p); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if strings.Contains(out, password) {
				t.Errorf("preview=%t: %s rendering shows the secret:\n%s", preview, name, out)
			}
			if !strings.Contains(out, "[secret]") {
				t.Errorf("preview=%t: %s rendering has no [secret] mask:\n%s", preview, name, out)
			}
		}
	}
}

func TestWriteTextShowsResourcesInputsAndOutputs(t *testing.T) {
	p := run(t, mockrun.Options{Preview: true})
	var buf bytes.Buffer
	if err := mockrun.WriteText(&buf, p); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"RESOURCES (4)",
		"OUTPUTS (6)",
		thingType + " main inputs:",
		`"size": "large"`,
		"dependsOn=" + thingType + "::base",
		"ignoreChanges=size",
		"secretOutputs=endpoint",
		"protect",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text plan lacks %q:\n%s", want, out)
		}
	}
	lines := map[string]string{}
	for _, line := range strings.Split(out[strings.Index(out, "OUTPUTS"):], "\n") {
		if fields := strings.Fields(line); len(fields) > 0 {
			lines[fields[0]] = strings.Join(fields[1:], " ")
		}
	}
	for name, want := range map[string]string{
		"id":              "false (known after deployment)",
		"endpoint":        "false (known after deployment)",
		"endpoint_secret": `true "[secret]"`,
		"password":        `true "[secret]"`,
		"size":            `false "large"`,
		"literal":         `false "fixed"`,
	} {
		if lines[name] != want {
			t.Errorf("output line %s = %q, want %q", name, lines[name], want)
		}
	}
}

func TestShortURNNamesAResourceByTypeAndName(t *testing.T) {
	tests := []struct {
		name, urn, want string
	}{
		{"a top-level resource", "urn:pulumi:plan::clusterplane::pulumi:pulumi:Stack::clusterplane-plan", "pulumi:pulumi:Stack::clusterplane-plan"},
		{"a child is named by its own type, not its parents'",
			"urn:pulumi:plan::clusterplane::clusterplane:civo:KubernetesCluster$civo:index/firewall:Firewall::dev-fra1",
			"civo:index/firewall:Firewall::dev-fra1"},
		{"a provider reference drops its id",
			"urn:pulumi:plan::clusterplane::pulumi:providers:civo::dev-fra1::dev-fra1-id", "pulumi:providers:civo::dev-fra1"},
		{"a provider reference with an unknown id drops it too",
			"urn:pulumi:plan::clusterplane::pulumi:providers:civo::dev-fra1::04da6b54-80e4-46f7-96ec-b56ff0331ba9", "pulumi:providers:civo::dev-fra1"},
		{"no URN is empty", "", ""},
		{"something that is not a URN is kept", "not-a-urn", "not-a-urn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mockrun.ShortURN(tt.urn); got != tt.want {
				t.Errorf("ShortURN(%q) = %q, want %q", tt.urn, got, tt.want)
			}
		})
	}
}

func TestFindAndOfTypeSelectRecordedResources(t *testing.T) {
	p := run(t, mockrun.Options{Preview: true})
	if r, ok := p.Find(thingType, "base"); !ok || r.Name != "base" || r.Type != thingType {
		t.Errorf("Find(thing, base) = %+v, %t", r, ok)
	}
	if _, ok := p.Find(thingType, "missing"); ok {
		t.Error("Find found a resource that was never registered")
	}
	if _, ok := p.Find(groupType, "base"); ok {
		t.Error("Find matched a name under the wrong type")
	}
	var names []string
	for _, r := range p.OfType(thingType) {
		names = append(names, r.Name)
	}
	if !slices.Equal(names, []string{"base", "main"}) {
		t.Errorf("OfType(thing) = %v, want [base main]", names)
	}
	if got := p.OfType("test:index:Nothing"); len(got) != 0 {
		t.Errorf("OfType of an unregistered type = %v", got)
	}
}

func TestRunReturnsTheErrorOfTheProgram(t *testing.T) {
	_, err := mockrun.Run(func(ctx *pulumi.Context) error {
		return errSentinel
	}, mockrun.Options{})
	if err == nil || !strings.Contains(err.Error(), errSentinel.Error()) {
		t.Errorf("mockrun.Run error = %v, want one containing %q", err, errSentinel)
	}
}

func TestRunPassesConfigToTheProgram(t *testing.T) {
	var got string
	_, err := mockrun.Run(func(ctx *pulumi.Context) error {
		got, _ = ctx.GetConfig(mockrun.Project + ":greeting")
		return nil
	}, mockrun.Options{Config: map[string]string{mockrun.Project + ":greeting": "hello"}})
	if err != nil {
		t.Fatal(err)
	}
	if got != "hello" {
		t.Errorf("config greeting = %q, want hello", got)
	}
}

var errSentinel = errors.New("the program failed on purpose")

// equalJSON compares two values as JSON, so that []string and []any compare equal.
func equalJSON(a, b any) bool {
	na, errA := normalized(a)
	nb, errB := normalized(b)
	return errA == nil && errB == nil && na == nb
}

// normalized is v as canonical JSON: marshalled, read back as plain data, marshalled again.
func normalized(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	var plain any
	if err := json.Unmarshal(b, &plain); err != nil {
		return "", err
	}
	b, err = json.Marshal(plain)
	return string(b), err
}

func TestADeploymentRendersASecretOutputMaskedAndAPlainOneInFull(t *testing.T) {
	p := run(t, mockrun.Options{State: endpointState})
	var buf bytes.Buffer
	if err := mockrun.WriteJSON(&buf, p); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Outputs map[string]map[string]any `json:"outputs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]map[string]any{
		"endpoint":        {"secret": false, "value": "https://main.example"},
		"endpoint_secret": {"secret": true, "value": "[secret]"},
		"id":              {"secret": false, "value": "main-id"},
	} {
		if !equalJSON(doc.Outputs[name], want) {
			t.Errorf("output %s rendered as %v, want %v", name, doc.Outputs[name], want)
		}
	}
}

// pooled is a custom resource with a nested block, as a DigitalOcean cluster has its default
// pool: the cloud fills the block's id in at deployment.
type pooled struct {
	pulumi.CustomResourceState
	Pool pulumi.StringMapOutput `pulumi:"pool"`
}

func TestAPreviewLeavesAnOutputReadFromANestedBlockUnknownRatherThanEmpty(t *testing.T) {
	// Reading a missing field of a typed block gives its zero value (as NodePool.Id().Elem()
	// gives ""), so only an unknown block keeps the output from reading as a known "".
	body := func(ctx *pulumi.Context) error {
		var r pooled
		if err := ctx.RegisterResource(thingType, "cluster", pulumi.Map{
			"pool": pulumi.StringMap{"size": pulumi.String("small")},
		}, &r); err != nil {
			return err
		}
		ctx.Export("pool_id", r.Pool.ApplyT(func(m map[string]string) string { return m["id"] }))
		return nil
	}
	for _, c := range []struct {
		name    string
		preview bool
		known   bool
	}{
		{"a preview", true, false},
		{"a deployment", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := mockrun.Run(body, mockrun.Options{Preview: c.preview})
			if err != nil {
				t.Fatal(err)
			}
			if o := p.Outputs["pool_id"]; o.Known != c.known {
				t.Errorf("pool_id = %+v, want known=%t", o, c.known)
			}
			var text bytes.Buffer
			if err := mockrun.WriteText(&text, p); err != nil {
				t.Fatal(err)
			}
			if shown := strings.Contains(text.String(), `pool_id  false   ""`); shown == !c.known {
				t.Errorf("text plan shows pool_id as a known empty string=%t, want %t:\n%s", shown, c.known, text.String())
			}
		})
	}
}

func TestWriteJSONWritesAbsentOptionsAsEmptyListsNotNull(t *testing.T) {
	p := &mockrun.Result{Resources: []mockrun.Resource{{Type: thingType, Name: "bare"}}}
	var buf bytes.Buffer
	if err := mockrun.WriteJSON(&buf, p); err != nil {
		t.Fatal(err)
	}
	var doc struct{ Resources []map[string]any }
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"dependsOn", "ignoreChanges", "additionalSecretOutputs"} {
		if got := doc.Resources[0][key]; !equalJSON(got, []any{}) {
			t.Errorf("%s = %#v, want [] as docs/manifests.md documents", key, got)
		}
	}
	if got := doc.Resources[0]["inputs"]; !equalJSON(got, map[string]any{}) {
		t.Errorf("inputs = %#v, want {}", got)
	}
}
