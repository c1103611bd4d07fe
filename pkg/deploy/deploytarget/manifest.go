package deploytarget

import (
	"sync"
	"sync/atomic"

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

// deployedInput is the stack input the stack last deployed: the recorded manifest text with
// input's provider config, so that only the manifest's own changes count. Nil when text is ""
// (never deployed, or deployed before the manifest was recorded).
func deployedInput(input proto.Message, text string) (proto.Message, error) {
	if text == "" {
		return nil, nil
	}
	reads.Add(1)
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

// reads counts the recorded manifests read (deployedInput), for the test that holds the promise
// of one read a stack a command.
var reads atomic.Int64

// recordedManifest is the manifest text the outputs recorded, "" when none.
func recordedManifest(outputs map[string]stackstate.Output) string {
	text, _ := outputs[ManifestOutput].Value.(string)
	return text
}

// deployedRecord is the manifest a stack last deployed and the change from it to the target's
// input, worked out on first use and kept: the gates before an up, the runner, drift and the
// report all ask of the same record, and each answer is a JSON parse and a field-by-field diff.
// Copies of a target share it; a target given another input (AsDeployed) or another record (the
// outputs after an up) has it worked out again for that one.
type deployedRecord struct {
	mu       sync.Mutex
	read     bool          // whether the fields below hold answers
	input    proto.Message // the target's input the answers are for
	text     string        // the recorded manifest they were read from
	old      proto.Message
	oldErr   error
	since    *diff.Result
	sinceErr error
	diffed   bool
}

// answers is the record's answers for input and text, emptied when it held another's.
func (r *deployedRecord) answers(input proto.Message, text string) {
	if !r.read || r.input != input || r.text != text {
		r.read, r.input, r.text = true, input, text
		r.old, r.oldErr = deployedInput(input, text)
		r.since, r.sinceErr, r.diffed = nil, nil, false
	}
}

// record is the target's record of its stack's last deploy; a target NewTarget did not make has
// none to share, and works its answers out for the one call.
func (t Target) record() *deployedRecord {
	if t.deployed == nil {
		return &deployedRecord{}
	}
	return t.deployed
}

// DeployedInput is the stack input the stack whose outputs are given last deployed: the recorded
// manifest with t's provider config, so that only the manifest's own changes count. Nil when the
// stack recorded none (never deployed, or deployed before the manifest was recorded). The
// answer is shared: callers read it and never change it.
func (t Target) DeployedInput(outputs map[string]stackstate.Output) (proto.Message, error) {
	r := t.record()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answers(t.Input, recordedManifest(outputs))
	return r.old, r.oldErr
}

// SinceDeployed is the diff from the manifest the stack whose outputs are given last deployed to
// t's; nil, and no error, when the stack recorded none. The answer is shared: callers read it and
// never change it.
func (t Target) SinceDeployed(outputs map[string]stackstate.Output) (*diff.Result, error) {
	r := t.record()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answers(t.Input, recordedManifest(outputs))
	if !r.diffed {
		r.diffed = true
		if r.oldErr != nil || r.old == nil {
			r.sinceErr = r.oldErr
		} else {
			r.since, r.sinceErr = diff.Compare(t.Effects, r.old, t.Input)
		}
	}
	return r.since, r.sinceErr
}

// Refused are the changes from the manifest the stack last deployed to t's that the providers
// (or the engine, for a protected cluster) cannot carry out: what `diff` calls refused. None when
// the stack recorded no manifest.
func (t Target) Refused(outputs map[string]stackstate.Output) ([]diff.Change, error) {
	result, err := t.SinceDeployed(outputs)
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
	old, err := t.DeployedInput(outputs)
	if err != nil || old == nil {
		return t
	}
	return t.WithInput(old)
}

// WithInput is t deploying input instead, with its own record of the stack's last deploy: the
// answers t holds were worked out for t's input.
func (t Target) WithInput(input proto.Message) Target {
	t.Input = input
	if t.deployed != nil {
		t.deployed = &deployedRecord{}
	}
	return t
}
