package protofield_test

import (
	"testing"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	dpv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
	"google.golang.org/protobuf/reflect/protoreflect"
)

func TestEachReaderAnswersTheFieldOrItsZeroWhenTheFieldIsMissingOrOfAnotherKind(t *testing.T) {
	spec := (&dpv1.DigitalOceanKubernetesNodePoolSpec{Size: "s-2vcpu-4gb", NodeCount: 3, AutoScale: true}).ProtoReflect()
	pool := (&dpv1.DigitalOceanKubernetesNodePool{Spec: &dpv1.DigitalOceanKubernetesNodePoolSpec{Size: "s-1vcpu-2gb"}}).ProtoReflect()
	md := (&sharedv1.CloudResourceMetadata{Annotations: map[string]string{"a": "b"}}).ProtoReflect()
	cases := []struct {
		name      string
		got, want any
	}{
		{"a string by its JSON name", protofield.String(spec, "size"), "s-2vcpu-4gb"},
		{"an int32 by its JSON name", protofield.Int(spec, "nodeCount"), int64(3)},
		{"a bool by its JSON name", protofield.Bool(spec, "autoScale"), true},
		{"a missing string", protofield.String(spec, "noSuchField"), ""},
		{"a string asked of an int32", protofield.String(spec, "nodeCount"), ""},
		{"an int asked of a string", protofield.Int(spec, "size"), int64(0)},
		{"a bool of no message", protofield.Bool(nil, "autoScale"), false},
		{"a message by its proto name", protofield.String(protofield.Message(pool, "spec"), "size"), "s-1vcpu-2gb"},
		{"a missing message", protofield.Message(pool, "no_such") == nil, true},
		{"a message of no message", protofield.Message(nil, "spec") == nil, true},
		{"a message asked of a string", protofield.Message(spec, "size") == nil, true},
		{"a path of JSON names", protofield.String(protofield.At(pool, "spec"), "size"), "s-1vcpu-2gb"},
		{"an empty path is the message", protofield.At(pool) == pool, true},
		{"a path through a string", protofield.At(pool, "spec", "size") == nil, true},
		{"a path through no message", protofield.At(nil, "spec") == nil, true},
		{"a map's value by its key", protofield.MapValue(md, "annotations", "a"), "b"},
		{"a map's missing key", protofield.MapValue(md, "annotations", "c"), ""},
		{"a map asked of a message", protofield.MapValue(pool, "spec", "a"), ""},
		{"a map of no message", protofield.MapValue(nil, "annotations", "a"), ""},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestDescriptorAtIsTheMessageTypeAtAPathOrNilWhereAStepIsNoMessage(t *testing.T) {
	in := (&dpv1.DigitalOceanKubernetesNodePoolStackInput{}).ProtoReflect().Descriptor()
	outputs := (&dpv1.DigitalOceanKubernetesNodePoolStackOutputs{}).ProtoReflect().Descriptor()
	cases := []struct {
		name string
		path []string
		want protoreflect.MessageDescriptor
	}{
		{"the stack input's outputs", []string{kindfield.StackInputTarget, kindfield.TargetStatus, kindfield.StatusOutputs}, outputs},
		{"no path is the message itself", nil, in},
		{"a step that is no field", []string{kindfield.StackInputTarget, "noSuchField", kindfield.StatusOutputs}, nil},
		{"a step that is a string, not a message", []string{kindfield.StackInputTarget, kindfield.TargetApiVersion, kindfield.StatusOutputs}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := protofield.DescriptorAt(in, c.path...); got != c.want {
				t.Errorf("DescriptorAt(%v) = %v, want %v", c.path, got, c.want)
			}
		})
	}
}
