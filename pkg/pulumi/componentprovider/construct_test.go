package componentprovider_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"

	civocluster "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/module"
	civopool "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/module"
	docluster "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/module"
	dopool "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/module"
	"github.com/clusterplane/clusterplane/internal/testing/fakeengine"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/pulumi/componentprovider"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/clusterplane/clusterplane/pkg/pulumi/pulumischema"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// component is what the tests know of each component.
type component struct {
	token string
	// examples is the folder of examples/ with its manifests.
	examples string
	// pkg is the cloud's Pulumi package; cloudType the resource the component exists to create.
	pkg, cloudType string
	newInput       func() proto.Message
	// program deploys a stack input the way the stack program does, for comparison.
	program func(*pulumi.Context, proto.Message) error
}

func programOf[T proto.Message](deploy func(*pulumi.Context, T) error) func(*pulumi.Context, proto.Message) error {
	return func(ctx *pulumi.Context, in proto.Message) error { return deploy(ctx, in.(T)) }
}

// newInput is the empty stack input of the kind named kind.
func newInput(kind string) func() proto.Message {
	k, _ := registry.Kinds().ByName(kind)
	return k.NewStackInput
}

var components = []component{
	{civocluster.TypeToken, "civokubernetescluster", "civo", "civo:index/kubernetesCluster:KubernetesCluster",
		newInput("CivoKubernetesCluster"), programOf(civocluster.Resources)},
	{civopool.TypeToken, "civokubernetesnodepool", "clusterplane", "clusterplane:civo:NodePool",
		newInput("CivoKubernetesNodePool"), programOf(civopool.Resources)},
	{docluster.TypeToken, "digitaloceankubernetescluster", "digitalocean", "digitalocean:index/kubernetesCluster:KubernetesCluster",
		newInput("DigitalOceanKubernetesCluster"), programOf(docluster.Resources)},
	{dopool.TypeToken, "digitaloceankubernetesnodepool", "digitalocean", "digitalocean:index/kubernetesNodePool:KubernetesNodePool",
		newInput("DigitalOceanKubernetesNodePool"), programOf(dopool.Resources)},
}

// The fake cloud: no DigitalOcean cluster exists yet, and a minor line's latest patch is .4.
const (
	getCluster  = "digitalocean:index/getKubernetesCluster:getKubernetesCluster"
	getVersions = "digitalocean:index/getKubernetesVersions:getKubernetesVersions"
)

func answer(token string, args map[string]any) (map[string]any, error) {
	switch token {
	case getCluster:
		return nil, errors.Errorf("Unable to find cluster with name %v", args["name"])
	case getVersions:
		prefix, _ := args["versionPrefix"].(string)
		return map[string]any{"latestVersion": prefix + "4-do.0", "validVersions": []any{prefix + "4-do.0"}}, nil
	}
	return nil, errors.Errorf("no answer for %s", token)
}

var stackOutputs = map[string]any{
	"cluster_id": "cluster-from-stack", "network_id": "network-from-stack", "firewall_id": "firewall-from-stack",
	"vpc_uuid": "vpc-from-stack",
}

func startEngine(t *testing.T) *fakeengine.Engine {
	invokes := map[string]fakeengine.InvokeFunc{}
	for _, token := range []string{getCluster, getVersions} {
		invokes[token] = func(args map[string]any) (map[string]any, []*pulumirpc.CheckFailure) {
			out, err := answer(token, args)
			if err != nil {
				return nil, []*pulumirpc.CheckFailure{{Reason: err.Error()}}
			}
			return out, nil
		}
	}
	return fakeengine.Start(t, fakeengine.Options{Invokes: invokes, StackOutputs: stackOutputs})
}

// providerClient serves the component provider over gRPC and returns a client of it.
func providerClient(t *testing.T, e *fakeengine.Engine) pulumirpc.ResourceProviderClient {
	addr := fakeengine.Serve(t, func(s *grpc.Server) {
		pulumirpc.RegisterResourceProviderServer(s, componentprovider.New(e.Conn, "0.0.0", []byte("{}"), registry.Kinds().Components()))
	})
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return pulumirpc.NewResourceProviderClient(conn)
}

// request is a Construct request of the component typ named name with inputs.
type request struct {
	typ, name string
	inputs    resource.PropertyMap
	deps      map[string][]string
	providers map[string]string
	dryRun    bool
}

func construct(t *testing.T, e *fakeengine.Engine, r request) (*pulumirpc.ConstructResponse, error) {
	t.Helper()
	inputs, err := plugin.MarshalProperties(r.inputs, plugin.MarshalOptions{
		KeepUnknowns: true, KeepSecrets: true, KeepResources: true, KeepOutputValues: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	deps := map[string]*pulumirpc.ConstructRequest_PropertyDependencies{}
	for k, urns := range r.deps {
		deps[k] = &pulumirpc.ConstructRequest_PropertyDependencies{Urns: urns}
	}
	return providerClient(t, e).Construct(context.Background(), &pulumirpc.ConstructRequest{
		Project:             fakeengine.Project,
		Stack:               fakeengine.Stack,
		DryRun:              r.dryRun,
		Parallel:            4,
		MonitorEndpoint:     e.MonitorAddr,
		Type:                r.typ,
		Name:                r.name,
		Inputs:              inputs,
		InputDependencies:   deps,
		Providers:           r.providers,
		AcceptsOutputValues: true,
	})
}

// inputsOf turns a stack input into a component's inputs, as a program would write them: the
// spec's fields, metadata and providerConfig, in camelCase.
func inputsOf(t *testing.T, stackInput proto.Message) resource.PropertyMap {
	t.Helper()
	in := stackInput.ProtoReflect()
	target := field(in, "target")
	out := toMap(t, field(target, "spec").Interface())
	out[pulumischema.MetadataInput] = toMap(t, field(target, "metadata").Interface())
	if cfg := field(in, "provider_config"); cfg.IsValid() {
		out[pulumischema.ProviderConfigInput] = toMap(t, cfg.Interface())
	}
	return resource.NewPropertyMapFromMap(out)
}

func field(m protoreflect.Message, name string) protoreflect.Message {
	return m.Get(m.Descriptor().Fields().ByName(protoreflect.Name(name))).Message()
}

func toMap(t *testing.T, m proto.Message) map[string]any {
	t.Helper()
	data, err := protojson.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func load(t *testing.T, c component, path string) proto.Message {
	t.Helper()
	in := c.newInput()
	if err := stackinput.LoadFile(path, in); err != nil {
		t.Fatal(err)
	}
	return in
}

func examples(t *testing.T, c component) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "..", "examples", c.examples, "*.stack-input.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples of %s: %v", c.token, err)
	}
	return paths
}

func objectOf(t *testing.T, s interface{ AsMap() map[string]any }) resource.PropertyMap {
	t.Helper()
	return resource.NewPropertyMapFromMap(s.AsMap())
}

func TestEveryExampleIsConstructedWithTheResourcesAndInputsItsStackProgramRegisters(t *testing.T) {
	for _, c := range components {
		for _, path := range examples(t, c) {
			t.Run(c.examples+"/"+filepath.Base(path), func(t *testing.T) {
				in := load(t, c, path)
				name := field(field(in.ProtoReflect(), "target"), "metadata").Interface().(interface{ GetName() string }).GetName()
				e := startEngine(t)
				resp, err := construct(t, e, request{typ: c.token, name: name, inputs: inputsOf(t, in)})
				if err != nil {
					t.Fatalf("Construct: %v", err)
				}
				compURN := e.URN(c.token, name)
				if resp.GetUrn() != compURN || compURN == "" {
					t.Fatalf("Construct returned URN %q; the component was registered as %q", resp.GetUrn(), compURN)
				}
				stacks := map[string]map[string]any{}
				for _, s := range e.StacksRead() {
					stacks[s] = stackOutputs
				}
				want, err := mockrun.Run(func(ctx *pulumi.Context) error { return c.program(ctx, in) }, mockrun.Options{
					Stacks: stacks,
					Invoke: func(token string, args resource.PropertyMap) (resource.PropertyMap, error) {
						out, err := answer(token, args.Mappable())
						return resource.NewPropertyMapFromMap(out), err
					},
				})
				if err != nil {
					t.Fatalf("plan of the stack program: %v", err)
				}
				var children int
				for _, r := range want.Resources {
					if strings.HasPrefix(r.Type, "pulumi:") || r.Type == c.token {
						continue
					}
					children++
					got := e.Find(r.Type, r.Name)
					if got == nil {
						t.Errorf("Construct did not register the %s %q that the stack program registers", r.Type, r.Name)
						continue
					}
					if !reflect.DeepEqual(objectOf(t, got.GetObject()), objectOf(t, r.Request.GetObject())) {
						t.Errorf("%s %q inputs differ:\n construct: %v\n program:   %v", r.Type, r.Name,
							got.GetObject().AsMap(), r.Request.GetObject().AsMap())
					}
					if got.GetParent() != compURN {
						t.Errorf("%s %q has parent %q, want the component %q", r.Type, r.Name, got.GetParent(), compURN)
					}
					if !strings.Contains(got.GetProvider(), "::"+name+"::") && !strings.Contains(got.GetProvider(), "pulumi:providers:"+c.pkg+"::"+name) {
						t.Errorf("%s %q is managed by %q, want the provider the component created", r.Type, r.Name, got.GetProvider())
					}
					if !slices.Equal(got.GetIgnoreChanges(), r.Request.GetIgnoreChanges()) || got.GetProtect() != r.Request.GetProtect() {
						t.Errorf("%s %q options differ: ignoreChanges %v protect %v, program %v %v", r.Type, r.Name,
							got.GetIgnoreChanges(), got.GetProtect(), r.Request.GetIgnoreChanges(), r.Request.GetProtect())
					}
				}
				if children == 0 || e.Find(c.cloudType, name) == nil {
					t.Errorf("no %s %q registered", c.cloudType, name)
				}
			})
		}
	}
}

func TestTheComponentsOutputsAreTheSchemasOutputs(t *testing.T) {
	schemas := map[string]pulumischema.Component{}
	for _, sc := range registry.Kinds().Schema() {
		schemas[sc.Token] = sc
	}
	for _, c := range components {
		t.Run(c.token, func(t *testing.T) {
			sc, ok := schemas[c.token]
			if !ok {
				t.Fatalf("the schema has no component %s", c.token)
			}
			var want []string
			secret := map[string]bool{}
			for i := range sc.Outputs.Fields().Len() {
				fd := sc.Outputs.Fields().Get(i)
				want = append(want, fd.JSONName())
				secret[fd.JSONName()] = strings.Contains(string(fd.Name()), "kubeconfig") && !strings.HasSuffix(string(fd.Name()), "expires_at")
			}
			sort.Strings(want)

			in := load(t, c, examples(t, c)[0])
			name := field(field(in.ProtoReflect(), "target"), "metadata").Interface().(interface{ GetName() string }).GetName()
			e := startEngine(t)
			resp, err := construct(t, e, request{typ: c.token, name: name, inputs: inputsOf(t, in)})
			if err != nil {
				t.Fatalf("Construct: %v", err)
			}
			registered := e.Outputs(resp.GetUrn())
			if registered == nil {
				t.Fatal("the component registered no outputs")
			}
			state, err := plugin.UnmarshalProperties(resp.GetState(), plugin.MarshalOptions{KeepSecrets: true, KeepUnknowns: true})
			if err != nil {
				t.Fatal(err)
			}
			for what, keys := range map[string][]string{
				"registered outputs": keysOf(registered.AsMap()),
				"Construct's state":  keysOf(state.Mappable()),
			} {
				if !slices.Equal(keys, want) {
					t.Errorf("%s are %v, want the schema's %v", what, keys, want)
				}
			}
			for k, v := range state {
				if v.IsSecret() != secret[string(k)] {
					t.Errorf("output %s: secret is %v, want %v", k, v.IsSecret(), secret[string(k)])
				}
			}
		})
	}
}

func keysOf(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// doPool is a valid DigitalOcean node pool's inputs, with cluster as its cluster input.
func doPool(cluster resource.PropertyValue) resource.PropertyMap {
	return resource.PropertyMap{
		"nodePoolName": resource.NewProperty("workers"),
		"cluster":      cluster,
		"size":         resource.NewProperty("s-2vcpu-4gb"),
		"nodeCount":    resource.NewProperty(2.0),
		"metadata":     resource.NewProperty(resource.PropertyMap{"name": resource.NewProperty("workers")}),
	}
}

func literal(id string) resource.PropertyValue {
	return resource.NewProperty(resource.PropertyMap{"value": resource.NewProperty(id)})
}

const clusterURN = "urn:pulumi:stack::project::clusterplane:digitalocean:KubernetesCluster::platform"

func TestAProviderPassedInProvidersManagesTheChildrenAndNoneIsCreated(t *testing.T) {
	for _, c := range components {
		t.Run(c.token, func(t *testing.T) {
			in := load(t, c, examples(t, c)[0])
			name := field(field(in.ProtoReflect(), "target"), "metadata").Interface().(interface{ GetName() string }).GetName()
			e := startEngine(t)
			given := e.ProviderRef(c.pkg, "shared")
			if _, err := construct(t, e, request{
				typ: c.token, name: name, inputs: inputsOf(t, in), providers: map[string]string{c.pkg: given},
			}); err != nil {
				t.Fatalf("Construct: %v", err)
			}
			if e.Find(c.cloudType, name) == nil {
				t.Fatalf("no %s registered", c.cloudType)
			}
			for _, r := range e.Registered() {
				switch {
				case r.GetType() == "pulumi:providers:"+c.pkg && r.GetName() != "shared":
					t.Errorf("the component created provider %q although one was passed", r.GetName())
				case r.GetCustom() && !strings.HasPrefix(r.GetType(), "pulumi:") && r.GetProvider() != given:
					t.Errorf("%s %q is managed by %q, want the provider passed in, %q", r.GetType(), r.GetName(), r.GetProvider(), given)
				}
			}
		})
	}
}

func TestAnIDGivenAsAnotherResourcesOutputKeepsItsDependency(t *testing.T) {
	for _, tc := range []struct {
		name   string
		dryRun bool
		known  bool
	}{
		{name: "known, in an update", known: true},
		{name: "unknown, in a preview", dryRun: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := startEngine(t)
			var id resource.PropertyValue
			if tc.known {
				id = resource.NewProperty("c-123")
			} else {
				id = resource.MakeComputed(resource.NewProperty(""))
			}
			cluster := resource.NewProperty(resource.PropertyMap{"value": resource.NewProperty(resource.Output{
				Element: id, Known: tc.known, Dependencies: []resource.URN{clusterURN},
			})})
			_, err := construct(t, e, request{
				typ: dopool.TypeToken, name: "workers", inputs: doPool(cluster), dryRun: tc.dryRun,
				deps: map[string][]string{"cluster": {clusterURN}},
			})
			if err != nil {
				t.Fatalf("Construct: %v", err)
			}
			pool := e.Find("digitalocean:index/kubernetesNodePool:KubernetesNodePool", "workers")
			if pool == nil {
				t.Fatal("no node pool registered")
			}
			if !slices.Contains(pool.GetPropertyDependencies()["clusterId"].GetUrns(), clusterURN) {
				t.Errorf("clusterId depends on %v, want the cluster %s", pool.GetPropertyDependencies()["clusterId"].GetUrns(), clusterURN)
			}
			got := pool.GetObject().AsMap()["clusterId"]
			if tc.known && got != "c-123" {
				t.Errorf("clusterId is %v, want c-123", got)
			}
			if !tc.known && got != plugin.UnknownStringValue {
				t.Errorf("clusterId is %v in a preview, want unknown", got)
			}
		})
	}
}

// Promise: component-refuses-an-output-or-a-secret-where-it-cannot
func TestBadInputsAreRefusedNamingTheFieldAndRegisterNothing(t *testing.T) {
	const token = "dop_v1_SENTINEL_TOKEN_NEVER_PRINTED"
	unknown := resource.MakeComputed(resource.NewProperty(""))
	fromCluster := resource.NewProperty(resource.Output{Element: resource.NewProperty(true), Known: true,
		Dependencies: []resource.URN{clusterURN}})
	with := func(key string, v resource.PropertyValue) resource.PropertyMap {
		in := doPool(literal("c-123"))
		in[resource.PropertyKey(key)] = v
		return in
	}
	cases := []struct {
		name   string
		inputs resource.PropertyMap
		deps   map[string][]string
		want   []string
	}{
		{name: "an output given to a field the module branches on, in a preview",
			inputs: with("autoScale", unknown), want: []string{"autoScale: takes a value known before deployment"}},
		{name: "an output given to a field the module branches on, known in an update",
			inputs: with("autoScale", fromCluster), deps: map[string][]string{"autoScale": {clusterURN}},
			want: []string{"autoScale: takes a value known before deployment"}},
		{name: "a spec that breaks a rule",
			inputs: with("nodeCount", resource.NewProperty(-1.0)),
			want:   []string{"nodeCount: must be greater than or equal to 0", "nodeCount: must be at least 1 unless autoScale is true"}},
		{name: "a cross-field rule",
			inputs: with("minNodes", resource.NewProperty(2.0)), want: []string{"minNodes: is only allowed when autoScale is true"}},
		{name: "a value of the wrong type",
			inputs: with("size", resource.NewProperty(3.0)), want: []string{"size: must be a string"}},
		{name: "an unknown input",
			inputs: with("nodeCont", resource.NewProperty(3.0)), want: []string{`nodeCont: clusterplane:digitalocean:KubernetesNodePool has no input "nodeCont"`}},
		{name: "an unknown enum value",
			inputs: with("taints", resource.NewProperty([]resource.PropertyValue{resource.NewProperty(resource.PropertyMap{
				"key": resource.NewProperty("gpu"), "effect": resource.NewProperty("Sometimes")})})),
			want: []string{"taints[0].effect: must be one of NoSchedule, PreferNoSchedule, NoExecute"}},
		{name: "a secret where the cloud gets plain text",
			inputs: with("labels", resource.MakeSecret(resource.NewProperty(resource.PropertyMap{"team": resource.NewProperty("a")}))),
			want:   []string{"labels: must not be a secret"}},
		{name: "a bad metadata name",
			inputs: with("metadata", resource.NewProperty(resource.PropertyMap{"name": resource.NewProperty("Not_A_Label")})),
			want:   []string{"metadata.name: "}},
		{name: "a bad provider setting next to a token",
			inputs: with("providerConfig", resource.NewProperty(resource.PropertyMap{
				"apiToken": resource.MakeSecret(resource.NewProperty(token)), "apiUrl": resource.NewProperty(3.0)})),
			want: []string{"providerConfig.apiUrl: must be a string"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := startEngine(t)
			_, err := construct(t, e, request{typ: dopool.TypeToken, name: "workers", inputs: tc.inputs, deps: tc.deps})
			if err == nil {
				t.Fatal("Construct succeeded")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if strings.Contains(err.Error(), token) {
				t.Errorf("error %q contains the token", err)
			}
			if got := e.Registered(); len(got) != 0 {
				t.Errorf("%d resources registered, want none; first %s %s", len(got), got[0].GetType(), got[0].GetName())
			}
		})
	}
}

func TestAnUnknownComponentTypeIsRefused(t *testing.T) {
	e := startEngine(t)
	_, err := construct(t, e, request{typ: "clusterplane:digitalocean:Droplet", name: "x", inputs: resource.PropertyMap{}})
	if err == nil || !strings.Contains(err.Error(), `no component "clusterplane:digitalocean:Droplet"`) {
		t.Fatalf("Construct of an unknown type: %v", err)
	}
}

// A TypeScript, Python or YAML program gets the hint validate gives for the same value.
func TestARefusedInputCarriesTheHintValidateGives(t *testing.T) {
	c := components[2] // a DigitalOcean cluster
	in := inputsOf(t, load(t, c, filepath.Join("..", "..", "..", "examples", c.examples, "minimal.stack-input.yaml")))
	in["region"] = resource.NewProperty("Fra1")
	_, err := construct(t, startEngine(t), request{typ: c.token, name: "dev", inputs: in})
	if err == nil || !strings.Contains(err.Error(), "region: ") || !strings.Contains(err.Error(), "write fra1") {
		t.Errorf("error %v, want region refused with the hint to write fra1", err)
	}
}

// newcomer7: a YAML program's region fra2 previewed without a word and failed at up, where
// validate warns of it; the component warns as validate does and goes on (the cloud decides).
func TestARegionTheCatalogueLacksIsWarnedOfAndTheComponentStillConstructed(t *testing.T) {
	c := components[2] // a DigitalOcean cluster
	in := inputsOf(t, load(t, c, filepath.Join("..", "..", "..", "examples", c.examples, "minimal.stack-input.yaml")))
	in["region"] = resource.NewProperty("fra2")
	e := startEngine(t)
	if _, err := construct(t, e, request{typ: c.token, name: "dev", inputs: in}); err != nil {
		t.Fatalf("Construct: %v", err)
	}
	logs := strings.Join(e.Logs(), "\n")
	if !strings.Contains(logs, `region: region "fra2" is not in the digitalocean catalogue`) || !strings.Contains(logs, "did you mean fra1?") {
		t.Errorf("logs %q, want the catalogue's warning naming fra1", logs)
	}
}
