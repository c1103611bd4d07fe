// Package mockrun runs a Pulumi program body under Pulumi's mocks, with no engine, cloud or token,
// and records every resource it registers (with its options) and every output it exports. The
// offline `plan` command and the module tests both stand on it, and the kinds' godoc examples
// print what it records through Show.
package mockrun

import (
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// Project and Stack are the names the mocks run under.
const (
	Project = "clusterplane"
	Stack   = "plan"
)

// StackReferenceType is the type token of a Pulumi stack reference.
const StackReferenceType = "pulumi:pulumi:StackReference"

// Resource is one registered resource as the engine would receive it.
type Resource struct {
	Type string `json:"type"`
	Name string `json:"name"`
	// Inputs are the registered inputs; secrets read "[secret]", values not known before
	// deployment "[unknown]".
	Inputs map[string]any `json:"inputs"`
	// Provider, Parent and DependsOn name resources as "type::name".
	Provider                string   `json:"provider"`
	Parent                  string   `json:"parent"`
	DependsOn               []string `json:"dependsOn"`
	IgnoreChanges           []string `json:"ignoreChanges"`
	Protect                 bool     `json:"protect"`
	AdditionalSecretOutputs []string `json:"additionalSecretOutputs"`
	// Aliases are the earlier identities this resource answers to, as "type::name" or
	// "noParent".
	Aliases []string `json:"aliases,omitempty"`

	// RawInputs are the inputs as the engine receives them (secrets and unknowns kept) and
	// Request the register request, for tests that need more than the summary; Request is nil
	// for read resources such as stack references.
	RawInputs resource.PropertyMap               `json:"-"`
	Request   *pulumirpc.RegisterResourceRequest `json:"-"`
}

// Output is one stack output.
type Output struct {
	Secret bool `json:"secret"`
	// Value is nil when it is not known before deployment. Secret values are kept here for tests
	// and never rendered.
	Value any  `json:"value"`
	Known bool `json:"-"`
}

// Result is everything a program body registered and exported under the mocks: a mock run's
// result, not a saved plan (the engine's plan file, savedplan.Plan).
type Result struct {
	Resources []Resource        `json:"resources"`
	Outputs   map[string]Output `json:"outputs"`
	// Cost is the stack input's monthly cost, when it was priced (pkg/change/cost).
	Cost *cost.Estimate `json:"cost,omitempty"`
	// resolved names the stack references whose stack the mocks knew.
	resolved map[string]bool
}

// Options shape the mocked run.
type Options struct {
	// Preview leaves every value the cloud would compute unknown, as `pulumi preview` does. Off,
	// the mocks answer ids ("<name>-id") and whatever State returns.
	Preview bool
	// Config is the stack configuration, keyed "project:key" (e.g. "clusterplane:stackInput").
	Config map[string]string
	// State adds outputs the cloud would compute to a resource's state, e.g. a kubeconfig.
	State func(typ, name string, inputs resource.PropertyMap) resource.PropertyMap
	// Stacks are the outputs of the stacks that stack references may read, by stack name. A
	// reference to a stack not listed fails, as it would against a real backend; in Preview it
	// stays unresolved instead.
	Stacks map[string]map[string]any
	// Invoke answers the provider functions (data sources) a program calls, by token, e.g. a
	// lookup of the live cluster. Without it, or when it answers nil, an invoke returns its
	// arguments: no live resource is known offline.
	Invoke func(token string, args resource.PropertyMap) (resource.PropertyMap, error)
}

// Find returns the first resource of type typ named name.
func (p *Result) Find(typ, name string) (Resource, bool) {
	for _, r := range p.Resources {
		if r.Type == typ && r.Name == name {
			return r, true
		}
	}
	return Resource{}, false
}

// OfType returns the resources of type typ.
func (p *Result) OfType(typ string) []Resource {
	var out []Resource
	for _, r := range p.Resources {
		if r.Type == typ {
			out = append(out, r)
		}
	}
	return out
}

// Run runs body under mocks and returns what it registered and exported.
func Run(body pulumi.RunFunc, opts Options) (*Result, error) {
	m := &mocks{opts: opts, resolved: map[string]bool{}}
	type export struct {
		name     string
		resolved pulumi.Output
	}
	var exports []export
	var mu sync.Mutex
	outputs := map[string]Output{}
	wrapped := func(ctx *pulumi.Context) error {
		if err := body(ctx); err != nil {
			return err
		}
		for name, value := range ctx.GetCurrentExportMap() {
			name := name
			resolved := pulumi.ToOutput(value).ApplyT(func(v any) (any, error) {
				mu.Lock()
				defer mu.Unlock()
				// In a preview, a value the cloud fills in later (a nested id) comes back as nil.
				outputs[name] = Output{Value: v, Known: !(opts.Preview && isNil(v))}
				return v, nil
			})
			exports = append(exports, export{name: name, resolved: resolved})
		}
		return nil
	}
	err := pulumi.RunErr(wrapped, pulumi.WithMocks(Project, Stack, m), func(info *pulumi.RunInfo) {
		info.DryRun = opts.Preview
		info.Config = opts.Config
	})
	if err != nil {
		return nil, err
	}
	for _, e := range exports {
		secret := pulumi.IsSecret(e.resolved) // waits for the output to settle
		mu.Lock()
		out := outputs[e.name]
		out.Secret = secret
		outputs[e.name] = out
		mu.Unlock()
	}
	p := &Result{Resources: m.resources, Outputs: outputs, resolved: m.resolved}
	sort.SliceStable(p.Resources, func(i, j int) bool {
		a, b := p.Resources[i], p.Resources[j]
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.Name < b.Name
	})
	return p, nil
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	return (rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Map || rv.Kind() == reflect.Slice) && rv.IsNil()
}

// isBlock tells a nested object, or a list of them, from a plain value.
func isBlock(v resource.PropertyValue) bool {
	switch {
	case v.IsSecret():
		return isBlock(v.SecretValue().Element)
	case v.IsObject():
		return true
	case v.IsArray():
		for _, e := range v.ArrayValue() {
			if isBlock(e) {
				return true
			}
		}
	}
	return false
}

type mocks struct {
	opts      Options
	mu        sync.Mutex
	resources []Resource
	resolved  map[string]bool
}

func (m *mocks) NewResource(args pulumi.MockResourceArgs) (string, resource.PropertyMap, error) {
	req := args.RegisterRPC
	inputs := requestInputs(args)
	r := Resource{
		Type:      args.TypeToken,
		Name:      args.Name,
		Inputs:    render(resource.NewObjectProperty(inputs)).(map[string]any),
		Provider:  ShortURN(args.Provider),
		RawInputs: inputs,
		Request:   req,
	}
	if req != nil {
		r.Parent = ShortURN(req.GetParent())
		for _, dep := range req.GetDependencies() {
			r.DependsOn = append(r.DependsOn, ShortURN(dep))
		}
		r.IgnoreChanges = req.GetIgnoreChanges()
		r.Protect = req.GetProtect()
		r.AdditionalSecretOutputs = req.GetAdditionalSecretOutputs()
		for _, alias := range req.GetAliases() {
			r.Aliases = append(r.Aliases, renderAlias(alias))
		}
	}
	if read := args.ReadRPC; read != nil {
		// Read resources, stack references among them, come without a register request.
		r.Parent = ShortURN(read.GetParent())
		for _, dep := range read.GetDependencies() {
			r.DependsOn = append(r.DependsOn, ShortURN(dep))
		}
	}
	m.mu.Lock()
	m.resources = append(m.resources, r)
	m.mu.Unlock()

	if args.TypeToken == StackReferenceType {
		return m.stackReference(args)
	}
	state := args.Inputs.Copy()
	if m.opts.Preview {
		// What the cloud computes, State included, stays unknown until deployment. That includes
		// the fields the cloud fills into a nested block, such as a default node pool's id; the
		// mocks know no schema to tell those from the block's inputs, so the whole block is left
		// out and reads as unknown. Kept, an output such as NodePool.Id().Elem() would read "".
		for k, v := range state {
			if isBlock(v) {
				delete(state, k)
			}
		}
		return "", state, nil
	}
	if m.opts.State != nil {
		for k, v := range m.opts.State(args.TypeToken, args.Name, args.Inputs) {
			state[k] = v
		}
	}
	return args.Name + "-id", state, nil
}

// requestInputs are the inputs as the engine would receive them. The mocks drop inputs not known
// yet from args.Inputs; the register request still has them, so they render as "[unknown]".
func requestInputs(args pulumi.MockResourceArgs) resource.PropertyMap {
	if args.RegisterRPC == nil {
		return args.Inputs
	}
	inputs, err := plugin.UnmarshalProperties(args.RegisterRPC.GetObject(), plugin.MarshalOptions{
		KeepUnknowns: true, KeepSecrets: true, KeepResources: true,
	})
	if err != nil {
		return args.Inputs
	}
	return inputs
}

func (m *mocks) stackReference(args pulumi.MockResourceArgs) (string, resource.PropertyMap, error) {
	name := args.Inputs["name"].StringValue()
	outputs, ok := m.opts.Stacks[name]
	if !ok {
		if m.opts.Preview {
			// Unresolved: in a preview the SDK reads every output of an empty stack as unknown.
			return "", resource.PropertyMap{
				"name":              args.Inputs["name"],
				"outputs":           resource.NewObjectProperty(resource.PropertyMap{}),
				"secretOutputNames": resource.NewArrayProperty(nil),
			}, nil
		}
		return "", nil, errors.Errorf("stack %q not found", name)
	}
	m.mu.Lock()
	m.resolved[args.Name] = true
	m.mu.Unlock()
	return name, resource.PropertyMap{
		"name":              args.Inputs["name"],
		"outputs":           resource.NewObjectProperty(resource.NewPropertyMapFromMap(outputs)),
		"secretOutputNames": resource.NewArrayProperty(nil),
	}, nil
}

func (m *mocks) Call(args pulumi.MockCallArgs) (resource.PropertyMap, error) {
	if m.opts.Invoke != nil {
		if out, err := m.opts.Invoke(args.Token, args.Args); out != nil || err != nil {
			return out, err
		}
	}
	return args.Args, nil
}

// ShortURN turns a URN or provider reference into "type::name" ("" for none).
func ShortURN(urn string) string {
	parts := strings.Split(urn, "::")
	if len(parts) < 4 {
		return urn
	}
	typ := parts[2]
	if i := strings.LastIndex(typ, "$"); i >= 0 {
		typ = typ[i+1:]
	}
	return typ + "::" + parts[3]
}

func renderAlias(a *pulumirpc.Alias) string {
	if urn := a.GetUrn(); urn != "" {
		return ShortURN(urn)
	}
	spec := a.GetSpec()
	if spec == nil {
		return ""
	}
	if spec.GetNoParent() {
		return "noParent"
	}
	return "parent=" + ShortURN(spec.GetParentUrn())
}

// render turns a property value into plain JSON-able data with secrets and unknowns masked.
func render(v resource.PropertyValue) any {
	switch {
	case v.IsSecret():
		return "[secret]"
	case v.IsComputed():
		return "[unknown]"
	case v.IsOutput():
		out := v.OutputValue()
		if out.Secret {
			return "[secret]"
		}
		if !out.Known {
			return "[unknown]"
		}
		return render(out.Element)
	case v.IsResourceReference():
		return ShortURN(string(v.ResourceReferenceValue().URN))
	case v.IsObject():
		obj := map[string]any{}
		for k, e := range v.ObjectValue() {
			obj[string(k)] = render(e)
		}
		return obj
	case v.IsArray():
		arr := []any{}
		for _, e := range v.ArrayValue() {
			arr = append(arr, render(e))
		}
		return arr
	case v.IsNull():
		return nil
	default:
		return v.V
	}
}
