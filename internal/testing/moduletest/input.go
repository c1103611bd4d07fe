package moduletest

import (
	"fmt"
	"slices"
	"testing"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Stack is how a kind's module tests run its stack program: Resources on a stack input I whose
// target is the kind's manifest (APIVersion, Kind, Name and a fresh Spec). Every kind's stack
// input and manifest have these fields under these names, so a kind's test writes only its
// values once, and each test says only what it changes.
type Stack[I, S proto.Message] struct {
	APIVersion, Kind, Name string
	// Spec is a fresh valid spec, the smallest the kind accepts.
	Spec      func() S
	Resources func(*pulumi.Context, I) error
	// Env are the variables the kind's provider falls back to; Isolate empties them, so the
	// host's cannot leak into a test.
	Env []string
	// State answers with what the cloud computes, for the runs whose options name none.
	State func(typ, name string, inputs resource.PropertyMap) resource.PropertyMap
}

// Input is a fresh stack input holding the kind's manifest, with each edit applied in order.
func (s Stack[I, S]) Input(edit ...func(I)) I {
	var zero I
	in := zero.ProtoReflect().Type().New()
	target := in.NewField(fieldNamed(in, "target")).Message()
	target.Set(fieldNamed(target, "api_version"), protoreflect.ValueOfString(s.APIVersion))
	target.Set(fieldNamed(target, "kind"), protoreflect.ValueOfString(s.Kind))
	target.Set(fieldNamed(target, "metadata"), protoreflect.ValueOfMessage((&sharedv1.CloudResourceMetadata{Name: s.Name}).ProtoReflect()))
	target.Set(fieldNamed(target, "spec"), protoreflect.ValueOfMessage(s.Spec().ProtoReflect()))
	in.Set(fieldNamed(in, "target"), protoreflect.ValueOfMessage(target))
	typed := in.Interface().(I)
	for _, e := range edit {
		e(typed)
	}
	return typed
}

// Isolate empties Env for the rest of the test.
func (s Stack[I, S]) Isolate(t *testing.T) {
	t.Helper()
	ClearEnv(t, s.Env...)
}

// Run isolates the test from the host's environment, then runs the stack program on a fresh
// input with the edits applied (see RunInput).
func (s Stack[I, S]) Run(t *testing.T, opts mockrun.Options, edit ...func(I)) *mockrun.Result {
	t.Helper()
	s.Isolate(t)
	return s.RunInput(t, s.Input(edit...), opts)
}

// RunInput runs the stack program on in under mocks, answering with State unless opts has its
// own, and fails the test on an error. It leaves the environment as the test set it.
func (s Stack[I, S]) RunInput(t *testing.T, in I, opts mockrun.Options) *mockrun.Result {
	t.Helper()
	p, err := s.RunErr(in, opts)
	if err != nil {
		t.Fatalf("mockrun.Run() error = %v", err)
	}
	return p
}

// RunErr is RunInput for a run that may fail: it returns the error instead of failing the test.
func (s Stack[I, S]) RunErr(in I, opts mockrun.Options) (*mockrun.Result, error) {
	if opts.State == nil {
		opts.State = s.State
	}
	return mockrun.Run(func(ctx *pulumi.Context) error { return s.Resources(ctx, in) }, opts)
}

// AssertTree checks that the stack program registered exactly its component (under the stack),
// its provider and its children (both under the component), each of the given type and named
// after the manifest, and created each child through that provider.
func (s Stack[I, S]) AssertTree(t *testing.T, p *mockrun.Result, component, provider string, children ...string) {
	t.Helper()
	ref := func(typ string) string { return typ + "::" + s.Name }
	want := []string{ref(component), ref(provider)}
	for _, c := range children {
		want = append(want, ref(c))
	}
	AssertEqual(t, "registered resources", slices.Sorted(slices.Values(Registered(p))), slices.Sorted(slices.Values(want)))
	AssertParent(t, MustFind(t, p, component, s.Name), StackRoot)
	AssertParent(t, MustFind(t, p, provider, s.Name), ref(component))
	for _, c := range children {
		r := MustFind(t, p, c, s.Name)
		AssertParent(t, r, ref(component))
		AssertProvider(t, r, ref(provider))
	}
}

// EachRegion runs the stack program once for each of regions, as a subtest named by it, with the
// spec's region set to it, and gives check the plan: a kind must put its resources in whichever
// region its spec names.
func (s Stack[I, S]) EachRegion(t *testing.T, check func(t *testing.T, region string, p *mockrun.Result), regions ...string) {
	t.Helper()
	for _, region := range regions {
		t.Run(region, func(t *testing.T) {
			check(t, region, s.Run(t, mockrun.Options{}, func(in I) { setSpecField(in, "region", region) }))
		})
	}
}

// specOf is in's spec, which edits change in place.
func specOf[S proto.Message](in proto.Message) S {
	r := in.ProtoReflect()
	target := r.Mutable(fieldNamed(r, "target")).Message()
	return target.Mutable(fieldNamed(target, "spec")).Message().Interface().(S)
}

// setSpecField sets the field of in's spec named field to v: a string, or a message.
func setSpecField(in proto.Message, field string, v any) {
	r := in.ProtoReflect()
	target := r.Mutable(fieldNamed(r, "target")).Message()
	spec := target.Mutable(fieldNamed(target, "spec")).Message()
	switch v := v.(type) {
	case string:
		spec.Set(fieldNamed(spec, field), protoreflect.ValueOfString(v))
	case proto.Message:
		spec.Set(fieldNamed(spec, field), protoreflect.ValueOfMessage(v.ProtoReflect()))
	default:
		panic(fmt.Sprintf("moduletest: cannot set a spec field to %T", v))
	}
}

// fieldNamed is m's field of that name; the kinds' messages share these names, so a missing one
// is a broken test.
func fieldNamed(m protoreflect.Message, name string) protoreflect.FieldDescriptor {
	fd := m.Descriptor().Fields().ByName(protoreflect.Name(name))
	if fd == nil {
		panic("moduletest: " + string(m.Descriptor().FullName()) + " has no field " + name)
	}
	return fd
}

// AssertProviders checks that the providers of type typ a plan registered are named want, in
// order: a component given a provider must create none of its own.
func AssertProviders(t *testing.T, p *mockrun.Result, typ string, want ...string) {
	t.Helper()
	got := []string{}
	for _, r := range p.OfType(typ) {
		got = append(got, r.Name)
	}
	AssertEqual(t, "providers", got, want)
}
