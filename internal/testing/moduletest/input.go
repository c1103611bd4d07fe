package moduletest

import (
	"testing"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Target is a kind's manifest M of apiVersion and kind, named name, with spec: every kind's
// manifest has these four fields under these names, so a kind's test writes only its values.
func Target[T any, M interface {
	*T
	proto.Message
}](apiVersion, kind, name string, spec proto.Message) M {
	m := M(new(T))
	r := m.ProtoReflect()
	r.Set(fieldNamed(r, "api_version"), protoreflect.ValueOfString(apiVersion))
	r.Set(fieldNamed(r, "kind"), protoreflect.ValueOfString(kind))
	r.Set(fieldNamed(r, "metadata"), protoreflect.ValueOfMessage((&sharedv1.CloudResourceMetadata{Name: name}).ProtoReflect()))
	r.Set(fieldNamed(r, "spec"), protoreflect.ValueOfMessage(spec.ProtoReflect()))
	return m
}

// Input is a kind's stack input I holding target, with each edit applied in order.
func Input[T any, I interface {
	*T
	proto.Message
}](target proto.Message, edit ...func(I)) I {
	in := I(new(T))
	r := in.ProtoReflect()
	r.Set(fieldNamed(r, "target"), protoreflect.ValueOfMessage(target.ProtoReflect()))
	for _, e := range edit {
		e(in)
	}
	return in
}

// RunResources runs a kind's stack program body, resources (the module's Resources), on in under
// mocks and fails the test on an error.
func RunResources[I any](t *testing.T, resources func(*pulumi.Context, I) error, in I, opts mockrun.Options) *mockrun.Result {
	t.Helper()
	return Run(t, func(ctx *pulumi.Context) error { return resources(ctx, in) }, opts)
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
