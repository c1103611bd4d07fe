package spectest

import (
	"strings"
	"testing"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Rejection is one broken rule of a kind's manifest M: a change to a valid manifest, the
// violations validation must report for it, and a text the error must contain when the message
// matters (empty when it does not).
type Rejection[M proto.Message] struct {
	Name   string
	Mutate func(M)
	Want   []Violation
	Hint   string
}

// AssertRejections runs each case on a fresh manifest from valid, and fails for any CEL rule of
// the kind's spec.proto or the shared protos that no case breaks: a rule without a case is a rule
// nobody has seen fail. It is run from the kind's v1 folder, whose files the patterns name.
func AssertRejections[M proto.Message](t *testing.T, valid func() M, tests []Rejection[M]) {
	t.Helper()
	covered := map[string]bool{}
	for _, tt := range tests {
		for _, w := range tt.Want {
			covered[w.Rule] = true
		}
		t.Run(tt.Name, func(t *testing.T) {
			m := valid()
			tt.Mutate(m)
			err := validation.Validate(m)
			AssertViolations(t, err, tt.Want...)
			if err != nil && !strings.Contains(err.Error(), tt.Hint) {
				t.Errorf("error %q does not contain %q", err, tt.Hint)
			}
		})
	}
	for _, id := range CELRuleIDs(t, "spec.proto", "../../../../shared/v1/*.proto") {
		if !covered[id] {
			t.Errorf("CEL rule %q has no test case", id)
		}
	}
}

// Acceptance is a change to a valid manifest that must keep it valid.
type Acceptance[M proto.Message] struct {
	Name   string
	Mutate func(M)
}

// AssertAcceptances runs each case on a fresh manifest from valid, expects validation to pass and
// then runs then on the manifest, e.g. to check what the module registers for it.
func AssertAcceptances[M proto.Message](t *testing.T, valid func() M, tests []Acceptance[M], then func(*testing.T, M)) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			m := valid()
			tt.Mutate(m)
			if err := validation.Validate(m); err != nil {
				t.Fatalf("Validate() = %v, want nil", err)
			}
			then(t, m)
		})
	}
}

// Envelope is the rules every kind's envelope has: its api_version and kind, and that metadata,
// spec and metadata.name are there. wrongAPIVersion and otherKind are what the cases write
// instead of the right ones, apiVersion and kind, which the errors must name.
func Envelope[M proto.Message](apiVersion, kind, wrongAPIVersion, otherKind string) []Rejection[M] {
	return []Rejection[M]{
		{"a wrong api_version is rejected", func(m M) { setString(m, "api_version", wrongAPIVersion) },
			[]Violation{{Field: "api_version", Rule: "string.const"}}, apiVersion},
		{"another kind is rejected", func(m M) { setString(m, "kind", otherKind) },
			[]Violation{{Field: "kind", Rule: "string.const"}}, kind},
		{"a manifest without metadata is rejected", func(m M) { clearField(m, "metadata") },
			[]Violation{{Field: "metadata", Rule: "required"}}, ""},
		{"a manifest without spec is rejected", func(m M) { clearField(m, "spec") },
			[]Violation{{Field: "spec", Rule: "required"}}, ""},
		{"a manifest without metadata.name is rejected", func(m M) { Metadata(m).Name = "" },
			[]Violation{{Field: "metadata.name", Rule: "required"}}, ""},
	}
}

// TaggedMetadata is the rules of the metadata of a kind whose cloud makes it tags: the cloud
// reserves some tags and bounds their length.
func TaggedMetadata[M proto.Message]() []Rejection[M] {
	return []Rejection[M]{
		{"a metadata label key the provider manages as a tag is rejected", func(m M) { Metadata(m).Labels = map[string]string{"K8s": "x"} },
			[]Violation{{Field: "metadata", Rule: "metadata.labels_not_reserved_tags"}}, "must not be k8s or terraform"},
		{"a metadata label key starting with terraform: is rejected", func(m M) { Metadata(m).Labels = map[string]string{"terraform:x": "y"} },
			[]Violation{{Field: "metadata", Rule: "metadata.labels_not_reserved_tags"}}, ""},
		{"a metadata label whose tag would exceed 255 characters is rejected", func(m M) {
			Metadata(m).Labels = map[string]string{"team": strings.Repeat("v", 251)}
		}, []Violation{{Field: "metadata", Rule: "metadata.tags_fit_255"}}, "at most 255 characters"},
		{"a metadata org whose tag would exceed 255 characters is rejected", func(m M) { Metadata(m).Org = strings.Repeat("o", 243) },
			[]Violation{{Field: "metadata", Rule: "metadata.tags_fit_255"}}, ""},
	}
}

// Metadata returns the manifest's metadata, which every kind has as its field "metadata".
func Metadata(m proto.Message) *sharedv1.CloudResourceMetadata {
	r := m.ProtoReflect()
	return r.Get(field(r, "metadata")).Message().Interface().(*sharedv1.CloudResourceMetadata)
}

func setString(m proto.Message, name, value string) {
	r := m.ProtoReflect()
	r.Set(field(r, name), protoreflect.ValueOfString(value))
}

func clearField(m proto.Message, name string) {
	r := m.ProtoReflect()
	r.Clear(field(r, name))
}

// field is the manifest's field of that name; every kind's envelope has the same names, so a
// missing one is a broken test, not a case.
func field(r protoreflect.Message, name string) protoreflect.FieldDescriptor {
	fd := r.Descriptor().Fields().ByName(protoreflect.Name(name))
	if fd == nil {
		panic("spectest: " + string(r.Descriptor().FullName()) + " has no field " + name)
	}
	return fd
}
