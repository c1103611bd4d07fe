package deploytarget

import (
	"github.com/pkg/errors"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/pulumi/stackrecord"
)

// The stack outputs every stack records besides its kind's (package stackrecord).
const (
	// GenerationOutput records the generation of the manifest the last up deployed; Status
	// compares it with the manifest's generation now.
	GenerationOutput = stackrecord.GenerationOutput
	// ManifestOutput records the manifest the last up deployed: Up and Preview diff it against the
	// new one and refuse what the providers cannot carry out, before the engine runs.
	ManifestOutput = stackrecord.ManifestOutput
)

// Generation identifies a manifest's content (stackrecord.Generation).
func Generation(input proto.Message) string { return stackrecord.Generation(input) }

// DeployedInput is the stack input the stack last deployed: the recorded manifest with input's
// provider config, so that only the manifest's own changes count. Nil when the stack recorded
// none (never deployed, or deployed before the manifest was recorded).
func DeployedInput(input proto.Message, outputs map[string]stackstate.Output) (proto.Message, error) {
	o, ok := outputs[ManifestOutput]
	text, _ := o.Value.(string)
	if !ok || text == "" {
		return nil, nil
	}
	old := proto.Clone(input)
	m := old.ProtoReflect()
	fd := m.Descriptor().Fields().ByJSONName(kindfield.StackInputTarget)
	if fd == nil {
		return nil, errors.New("the stack input has no target")
	}
	target := m.NewField(fd).Message()
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal([]byte(text), target.Interface()); err != nil {
		return nil, errors.Wrap(err, "read the manifest the stack last deployed")
	}
	m.Set(fd, protoreflect.ValueOfMessage(target))
	return old, nil
}

// SinceDeployed is the diff from the manifest the stack last deployed to input; nil, and no
// error, when the stack recorded none.
func SinceDeployed(table *effects.Table, input proto.Message, outputs map[string]stackstate.Output) (*diff.Result, error) {
	old, err := DeployedInput(input, outputs)
	if err != nil || old == nil {
		return nil, err
	}
	return diff.Compare(table, old, input)
}

// Refused are the changes from the manifest the stack last deployed to input that the providers
// (or the engine, for a protected cluster) cannot carry out: what `diff` calls refused. None when
// the stack recorded no manifest.
func Refused(table *effects.Table, input proto.Message, outputs map[string]stackstate.Output) ([]diff.Change, error) {
	result, err := SinceDeployed(table, input, outputs)
	if err != nil || result == nil {
		return nil, err
	}
	var out []diff.Change
	for _, c := range result.Changes {
		if c.Effect == effects.Refused {
			out = append(out, c)
		}
	}
	return out, nil
}

// AsDeployed is t as the stack's last up deployed it: t with the manifest the stack recorded
// (DeployedInput), or t itself when it recorded none or it cannot be read. Previewed against the
// cloud, it changes only what the cloud changed since that up: the manifest's own edits since are
// not in it, as Terraform's plan -refresh-only leaves the configuration's changes out.
func AsDeployed(t Target, outputs map[string]stackstate.Output) Target {
	old, err := DeployedInput(t.Input, outputs)
	if err != nil || old == nil {
		return t
	}
	t.Input = old
	return t
}
