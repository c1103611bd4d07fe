// Package moduletest holds the helpers the module tests under iac/pulumi share: running a
// program body under pkg/pulumi/mockrun's mocks, finding what it registered, building spec values, and the
// checks every module makes on parents, providers, aliases and secrets. Builders and constants
// of one kind stay in that kind's tests: this package imports no kind.
package moduletest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// StackRoot is the stack resource of the mocks' stack, the parent of top-level resources.
const StackRoot = "pulumi:pulumi:Stack::" + mockrun.Project + "-" + mockrun.Stack

// ClearEnv empties the variables a provider falls back to, so the host's cannot leak into a test.
func ClearEnv(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		t.Setenv(n, "")
	}
}

// Run runs body under mocks and fails the test on an error.
func Run(t *testing.T, body pulumi.RunFunc, opts mockrun.Options) *mockrun.Result {
	t.Helper()
	p, err := mockrun.Run(body, opts)
	if err != nil {
		t.Fatalf("mockrun.Run() error = %v", err)
	}
	return p
}

// RunBody runs body under mocks and returns its error along with whatever it registered before
// failing: returned to mockrun.Run, the error would discard the plan the test wants to inspect.
func RunBody(t *testing.T, body pulumi.RunFunc, opts mockrun.Options) (*mockrun.Result, error) {
	t.Helper()
	var bodyErr error
	p := Run(t, func(ctx *pulumi.Context) error {
		bodyErr = body(ctx)
		return nil
	}, opts)
	return p, bodyErr
}

// RunWithProvider runs a program that creates a provider named "shared" with newProvider and
// hands it to body, which calls New with it, and fails the test on an error: how a test checks
// that New uses a provider it is given.
func RunWithProvider[P any](t *testing.T, opts mockrun.Options, newProvider func(ctx *pulumi.Context, name string) (P, error),
	body func(ctx *pulumi.Context, shared P) error) *mockrun.Result {
	t.Helper()
	return Run(t, func(ctx *pulumi.Context) error {
		shared, err := newProvider(ctx, "shared")
		if err != nil {
			return err
		}
		return body(ctx, shared)
	}, opts)
}

// Render is the plan as the plan command writes it in JSON.
func Render(t *testing.T, p *mockrun.Result) string {
	t.Helper()
	var buf bytes.Buffer
	if err := mockrun.WriteJSON(&buf, p); err != nil {
		t.Fatalf("WriteJSON() error = %v", err)
	}
	return buf.String()
}

// MustFind returns the resource of type typ named name, failing the test when there is none.
func MustFind(t *testing.T, p *mockrun.Result, typ, name string) mockrun.Resource {
	t.Helper()
	r, ok := p.Find(typ, name)
	if !ok {
		t.Fatalf("no %s named %q; registered: %v", typ, name, Registered(p))
	}
	return r
}

// Registered lists the plan's resources as "type::name" in the plan's order, which mockrun.Run
// sorts by type and name, so that a list of them compares without sorting.
func Registered(p *mockrun.Result) []string {
	out := []string{}
	for _, r := range p.Resources {
		out = append(out, r.Type+"::"+r.Name)
	}
	return out
}

// AssertMissingOutput checks that a run failed, as it must when the stack a reference reads lacks
// the output, and that its error names both that stack and that output, quoted.
func AssertMissingOutput(t *testing.T, err error, stack, output string) {
	t.Helper()
	if err == nil {
		t.Fatalf("the run succeeded, want an error naming the stack %s and the output %s", stack, output)
	}
	for _, want := range []string{`"` + stack + `"`, `"` + output + `"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %s: %v", want, err)
		}
	}
}

// AssertNothingRegistered checks that a rejected input created nothing.
func AssertNothingRegistered(t *testing.T, p *mockrun.Result) {
	t.Helper()
	if len(p.Resources) != 0 {
		t.Errorf("registered %v, want nothing", Registered(p))
	}
}

// OutputNames are the names of the plan's outputs, sorted.
func OutputNames(p *mockrun.Result) []string {
	names := []string{}
	for n := range p.Outputs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// AssertEqual compares deeply and shows both sides as JSON, which reads better than %v for the
// nested maps of rendered inputs.
func AssertEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		w, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("%s differs\n got: %s\nwant: %s", what, g, w)
	}
}

// assertSameJSON compares got and want as JSON, so that the float64 of rendered inputs equals the
// int a test writes.
func assertSameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	if g, w := JSON(got), JSON(want); g != w {
		t.Errorf("%s\n got: %s\nwant: %s", what, g, w)
	}
}

// AssertMinimal checks r as a minimal manifest registers it: sent exactly inputs (compared as
// JSON), ignoring no change and depending on nothing, since nothing in the manifest asks for it.
func AssertMinimal(t *testing.T, r mockrun.Resource, inputs map[string]any) {
	t.Helper()
	assertSameJSON(t, r.Type+" inputs", r.Inputs, inputs)
	if len(r.IgnoreChanges) != 0 {
		t.Errorf("%s ignoreChanges = %v, want none", r.Type, r.IgnoreChanges)
	}
	if len(r.DependsOn) != 0 {
		t.Errorf("%s dependsOn = %v, want none", r.Type, r.DependsOn)
	}
}

// JSON marshals v for comparison; rendered inputs hold float64 where a test writes int, and JSON
// makes the two equal.
func JSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// Absent, as a value wanted by AssertInputs, means the input must not be sent at all.
var Absent = &struct{ absent bool }{}

// AssertInputs checks each dotted path of want (such as "nodePool.minNodes") against inputs,
// compared as JSON. Paths not in want are not checked.
func AssertInputs(t *testing.T, inputs map[string]any, want map[string]any) {
	t.Helper()
	for path, w := range want {
		got, ok := lookup(inputs, path)
		switch {
		case w == Absent && ok:
			t.Errorf("%s is sent as %s, want it absent", path, JSON(got))
		case w == Absent:
		case !ok:
			t.Errorf("%s is not sent, want %s", path, JSON(w))
		case JSON(got) != JSON(w):
			t.Errorf("%s = %s, want %s", path, JSON(got), JSON(w))
		}
	}
}

func lookup(inputs map[string]any, path string) (any, bool) {
	var cur any = inputs
	for _, key := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[key]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// PropertyDependencies returns the URNs the input named key was registered as depending on.
func PropertyDependencies(r mockrun.Resource, key string) []string {
	return r.Request.GetPropertyDependencies()[key].GetUrns()
}

// SecretString returns the plain string inside a secret property value, and whether v is a
// secret holding a string at all.
func SecretString(v resource.PropertyValue) (string, bool) {
	var inner resource.PropertyValue
	switch {
	case v.IsSecret():
		inner = v.SecretValue().Element
	case v.IsOutput() && v.OutputValue().Secret:
		inner = v.OutputValue().Element
	default:
		return "", false
	}
	if !inner.IsString() {
		return "", false
	}
	return inner.StringValue(), true
}

// AssertSecretInput checks that r's input key carries want, and only as a secret: masked where
// the plan is rendered, a secret where the engine receives it.
func AssertSecretInput(t *testing.T, r mockrun.Resource, key, want string) {
	t.Helper()
	if got := r.Inputs[key]; got != "[secret]" {
		t.Errorf("%s %s %s renders %#v, want [secret]", r.Type, r.Name, key, got)
	}
	raw := r.RawInputs[resource.PropertyKey(key)]
	got, secret := SecretString(raw)
	if !secret {
		t.Fatalf("%s %s %s is not a secret: %v", r.Type, r.Name, key, raw)
	}
	if got != want {
		t.Errorf("%s %s %s = %q, want %q", r.Type, r.Name, key, got, want)
	}
}

// AssertUnknown checks that r's input key is unknown, as a preview leaves a value the cloud has not
// computed yet: unknown where the engine receives it, and rendered "[unknown]".
func AssertUnknown(t *testing.T, r mockrun.Resource, key string) {
	t.Helper()
	if v := r.RawInputs[resource.PropertyKey(key)]; !v.IsComputed() {
		t.Errorf("%s %s %s = %v, want unknown", r.Type, r.Name, key, v)
	}
	if got := r.Inputs[key]; got != "[unknown]" {
		t.Errorf("%s %s %s renders %#v, want [unknown]", r.Type, r.Name, key, got)
	}
}

// AssertNoLeak checks that secret shows nowhere a plan is rendered: the plan command's JSON and
// text, and a plain JSON marshalling of the plan. The last holds output values unmasked, so it
// suits a credential that must never be exported, not a secret output such as a kubeconfig (check
// that against Render). The message does not repeat secret, so as not to leak it into the log.
func AssertNoLeak(t *testing.T, p *mockrun.Result, secret string) {
	t.Helper()
	var js, text bytes.Buffer
	if err := mockrun.WriteJSON(&js, p); err != nil {
		t.Fatalf("WriteJSON() error = %v", err)
	}
	if err := mockrun.WriteText(&text, p); err != nil {
		t.Fatalf("WriteText() error = %v", err)
	}
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatalf("marshal the plan: %v", err)
	}
	for _, r := range []struct{ where, rendered string }{
		{"JSON plan", js.String()},
		{"text plan", text.String()},
		{"marshalled resources and outputs", string(raw)},
	} {
		if strings.Contains(r.rendered, secret) {
			t.Errorf("a secret appears in plain text in the %s", r.where)
			return
		}
	}
}

// AssertParent checks that r was created as a child of parent ("type::name").
func AssertParent(t *testing.T, r mockrun.Resource, parent string) {
	t.Helper()
	if r.Parent != parent {
		t.Errorf("%s %s parent = %q, want %q", r.Type, r.Name, r.Parent, parent)
	}
}

// AssertProvider checks that r was created through provider ("type::name").
func AssertProvider(t *testing.T, r mockrun.Resource, provider string) {
	t.Helper()
	if r.Provider != provider {
		t.Errorf("%s %s provider = %q, want %q", r.Type, r.Name, r.Provider, provider)
	}
}

// AssertRootAlias checks that r, now a child of a component, still answers to the URN the stack
// program gave it when it created r at the stack's root, so that existing stacks update in place
// instead of replacing it: the same type and name, and one alias that drops the parent and keeps
// everything else.
func AssertRootAlias(t *testing.T, r mockrun.Resource) {
	t.Helper()
	if r.Request == nil {
		t.Fatalf("%s %s has no register request", r.Type, r.Name)
	}
	if r.Request.GetType() != r.Type || r.Request.GetName() != r.Name {
		t.Errorf("registered as %s %s, want %s %s", r.Request.GetType(), r.Request.GetName(), r.Type, r.Name)
	}
	aliases := r.Request.GetAliases()
	if len(aliases) != 1 {
		t.Fatalf("%s %s has aliases %v, want one", r.Type, r.Name, aliases)
	}
	spec := aliases[0].GetSpec()
	if spec == nil || !spec.GetNoParent() {
		t.Fatalf("%s %s alias = %v, want a spec with noParent", r.Type, r.Name, aliases[0])
	}
	// Empty fields of an alias spec mean "the same as the resource's".
	for field, got := range map[string]string{
		"name": spec.GetName(), "type": spec.GetType(), "stack": spec.GetStack(), "project": spec.GetProject(),
	} {
		if got != "" {
			t.Errorf("%s %s alias changes its %s to %q, want it kept", r.Type, r.Name, field, got)
		}
	}
}

// AssertNoAliases checks that none of rs answers to an earlier URN: components are new, and
// programs calling New have no root-level URNs to keep.
func AssertNoAliases(t *testing.T, rs ...mockrun.Resource) {
	t.Helper()
	for _, r := range rs {
		if len(r.Aliases) != 0 {
			t.Errorf("%s %s has aliases %v, want none", r.Type, r.Name, r.Aliases)
		}
	}
}

// ViolatedFields lists the field of each violation in err, in order.
func ViolatedFields(err error) []string {
	fields := []string{}
	for _, v := range validation.Violations(err) {
		fields = append(fields, v.Field)
	}
	return fields
}

// AssertProtection asserts that the resources of type typ are registered with protect equal to
// want and that no other resource is protected.
func AssertProtection(t *testing.T, p *mockrun.Result, typ string, want bool) {
	t.Helper()
	if len(p.OfType(typ)) == 0 {
		t.Fatalf("no %s registered", typ)
	}
	for _, r := range p.Resources {
		if wantThis := want && r.Type == typ; r.Protect != wantThis {
			t.Errorf("%s::%s protect = %t, want %t", r.Type, r.Name, r.Protect, wantThis)
		}
	}
}

// Protection is a cluster's deletion_protection as a manifest may set it, and whether the
// cluster resource must then be protected.
type Protection struct {
	Name    string
	Value   *bool
	Protect bool
}

// Protections are the three ways a manifest sets deletion_protection.
func Protections() []Protection {
	on, off := true, false
	return []Protection{
		{Name: "absent means protected", Protect: true},
		{Name: "true is protected", Value: &on, Protect: true},
		{Name: "false leaves the cluster unprotected", Value: &off},
	}
}
