package componentprovider_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/internal/testing/fakeengine"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"go.yaml.in/yaml/v3"
)

// yamlProgram is the part of a Pulumi YAML program the test reads.
type yamlProgram struct {
	Resources yaml.Node         `yaml:"resources"`
	Outputs   map[string]string `yaml:"outputs"`
}

type yamlResource struct {
	Type       string         `yaml:"type"`
	Properties map[string]any `yaml:"properties"`
	Options    struct {
		Providers []string `yaml:"providers"`
	} `yaml:"options"`
}

var interpolation = regexp.MustCompile(`^\$\{([A-Za-z][A-Za-z0-9_]*)(?:\.([A-Za-z][A-Za-z0-9_]*))?\}$`)

// TestThePulumiYAMLExampleIsConstructed runs the YAML example's resources through Construct in
// file order, as the engine would: interpolations of a component's outputs become outputs with
// the component as their dependency, config values secrets, and providers references.
func TestThePulumiYAMLExampleIsConstructed(t *testing.T) {
	data, err := os.ReadFile("../../../examples/pulumi-yaml/Pulumi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var prog yamlProgram
	if err := yaml.Unmarshal(data, &prog); err != nil {
		t.Fatal(err)
	}
	e := startEngine(t)
	components := map[string]constructed{}
	providers := map[string]string{}
	for i := 0; i+1 < len(prog.Resources.Content); i += 2 {
		name := prog.Resources.Content[i].Value
		var r yamlResource
		if err := prog.Resources.Content[i+1].Decode(&r); err != nil {
			t.Fatal(err)
		}
		if pkg, ok := strings.CutPrefix(r.Type, "pulumi:providers:"); ok {
			providers["${"+name+"}"] = e.ProviderRef(pkg, name)
			continue
		}
		components[name] = constructYAMLResource(t, e, name, r, components, providers)
	}

	pool := e.Find("digitalocean:index/kubernetesNodePool:KubernetesNodePool", "gpu")
	cluster := e.Find("digitalocean:index/kubernetesCluster:KubernetesCluster", "platform")
	if pool == nil || cluster == nil {
		t.Fatal("the example's cluster and pool were not both registered")
	}
	if got, want := pool.GetObject().AsMap()["clusterId"], components["platform"].state["clusterId"].StringValue(); got != want || want == "" {
		t.Errorf("the pool joins cluster %v, want the cluster component's id %q", got, want)
	}
	if deps := pool.GetPropertyDependencies()["clusterId"].GetUrns(); len(deps) != 1 || deps[0] != components["platform"].urn {
		t.Errorf("the pool's clusterId depends on %v, want the cluster component", deps)
	}
	for _, r := range []string{"platform", "gpu"} {
		child := cluster
		if r == "gpu" {
			child = pool
		}
		if child.GetProvider() != providers["${do}"] {
			t.Errorf("%s's resource is managed by %q, want the program's provider", r, child.GetProvider())
		}
	}
	for name, expr := range prog.Outputs {
		m := interpolation.FindStringSubmatch(expr)
		if m == nil {
			continue
		}
		if _, ok := components[m[1]].state[resource.PropertyKey(m[2])]; !ok {
			t.Errorf("output %s reads %s, which the component does not have", name, expr)
		}
	}
}

// constructed is a component as Construct answered it: its URN and its outputs.
type constructed struct {
	urn   string
	state resource.PropertyMap
}

// constructYAMLResource constructs one program resource as the engine would, its inputs resolved.
func constructYAMLResource(t *testing.T, e *fakeengine.Engine, name string, r yamlResource, components map[string]constructed, providers map[string]string) constructed {
	t.Helper()
	inputs := resource.PropertyMap{}
	deps := map[string][]string{}
	for k, v := range r.Properties {
		d := map[string]bool{}
		inputs[resource.PropertyKey(k)] = yamlValue(t, v, components, d)
		for urn := range d {
			deps[k] = append(deps[k], urn)
		}
	}
	given := map[string]string{}
	for _, p := range r.Options.Providers {
		ref, ok := providers[p]
		if !ok {
			t.Fatalf("%s: provider %s is not declared before it", name, p)
		}
		given[strings.Split(strings.Split(ref, "pulumi:providers:")[1], "::")[0]] = ref
	}
	resp, err := construct(t, e, request{typ: r.Type, name: name, inputs: inputs, deps: deps, providers: given})
	if err != nil {
		t.Fatalf("Construct %s: %v", name, err)
	}
	state, err := plugin.UnmarshalProperties(resp.GetState(), plugin.MarshalOptions{KeepSecrets: true})
	if err != nil {
		t.Fatal(err)
	}
	return constructed{urn: resp.GetUrn(), state: state}
}

// yamlValue turns a YAML value into an input, resolving ${...}; deps collects what it waits for.
func yamlValue(t *testing.T, v any, components map[string]constructed, deps map[string]bool) resource.PropertyValue {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		m := resource.PropertyMap{}
		for k, e := range v {
			m[resource.PropertyKey(k)] = yamlValue(t, e, components, deps)
		}
		return resource.NewProperty(m)
	case []any:
		var a []resource.PropertyValue
		for _, e := range v {
			a = append(a, yamlValue(t, e, components, deps))
		}
		return resource.NewProperty(a)
	case string:
		m := interpolation.FindStringSubmatch(v)
		if m == nil {
			return resource.NewProperty(v)
		}
		c, ok := components[m[1]]
		if !ok {
			t.Fatalf("%s refers to no component constructed before it", v)
		}
		out, ok := c.state[resource.PropertyKey(m[2])]
		if !ok {
			t.Fatalf("%s: %s has no output %q", v, m[1], m[2])
		}
		deps[c.urn] = true
		return resource.NewProperty(resource.Output{Element: plainOf(out), Known: true, Secret: out.ContainsSecrets(),
			Dependencies: []resource.URN{resource.URN(c.urn)}})
	case bool:
		return resource.NewProperty(v)
	case int:
		return resource.NewProperty(float64(v))
	case float64:
		return resource.NewProperty(v)
	}
	t.Fatalf("the test cannot read a YAML %T", v)
	return resource.PropertyValue{}
}

func plainOf(v resource.PropertyValue) resource.PropertyValue {
	if v.IsSecret() {
		return v.SecretValue().Element
	}
	return v
}
