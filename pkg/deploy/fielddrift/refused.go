package fielddrift

import (
	"encoding/json"
	"strings"

	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// NotReplacedByEngine drops from refused the replacements deletion protection refuses that the
// engine's preview (res) does not make: a field newly written with the value the cloud already
// has (spec.vpc set to the cluster's own VPC, as a refusal's advice asks) replaces nothing,
// because the provider compares with what it read, not with the manifest before. The providers
// are the truth about what a change does.
func NotReplacedByEngine(refused []diff.Change, res stackstate.Result) []diff.Change {
	replaced := map[string]bool{}
	for _, s := range res.Steps {
		switch apitype.OpType(s.Action) {
		case apitype.OpReplace, apitype.OpCreateReplacement, apitype.OpDeleteReplaced:
			replaced[s.Type+"::"+s.Name] = true
		}
	}
	var out []diff.Change
	for _, c := range refused {
		if OnPaper(c) && !replaced[c.Resource] {
			continue
		}
		out = append(out, c)
	}
	return out
}

// NotApplied tells a refusal of a change the provider never sends (a DigitalOcean pool's labels
// emptied): the cloud may hold the manifest's value already, made so outside clusterplane.
func NotApplied(c diff.Change) bool {
	return c.Refusal == effects.NotApplied
}

// HeldByCloud drops the refusals of changes the provider never sends (notApplied) that the cloud
// already holds: res previews the manifest against the cloud, read first, and no step changes the
// field, so up has nothing to send and only records what is so. Without it, a user who did what
// the refusal advises (removed the labels in the cloud) could never deploy the manifest.
func HeldByCloud(refused []diff.Change, t deploytarget.Target, res stackstate.Result) []diff.Change {
	differs := map[string]diff.Change{}
	for _, f := range driftedFields(t.Effects, res.Steps) {
		differs[f.Field] = diff.Change{}
	}
	var out []diff.Change
	for _, c := range refused {
		if NotApplied(c) && !Among(c.Path, differs) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// OnPaper tells a refusal the engine may not agree with: a replacement refused for deletion
// protection, of a field the manifest before left unset (the cloud chose its value then).
func OnPaper(c diff.Change) bool {
	return c.Refusal == effects.Protected && c.Old == nil
}

// WithValues is input with each field of fields set to what the cloud had (Live): the manifest
// that describes the cloud as an up found it, before it put those fields back. A field that is no
// single manifest path ("a or b", a property no field sends), or whose value does not fit it,
// keeps input's value.
func WithValues(input proto.Message, fields []outcome.FieldDrift) proto.Message {
	out := input
	for _, f := range fields {
		if next, err := withValue(out, f.Field, f.Live); err == nil {
			out = next
		}
	}
	return out
}

// withValue is input with the manifest field at path (as diff names it, "spec.nodeCount") set to
// v, through the JSON form both the manifest and the cloud's values are read in.
func withValue(input proto.Message, path string, v any) (proto.Message, error) {
	if path == "" || strings.Contains(path, " ") {
		return nil, errors.Errorf("%q is not one manifest field", path)
	}
	b, err := protojson.Marshal(input)
	if err != nil {
		return nil, errors.Wrap(err, "write the manifest as JSON")
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, errors.Wrap(err, "read the manifest's JSON")
	}
	parts := append([]string{kindfield.StackInputTarget}, strings.Split(path, ".")...)
	m := doc
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = v
	if b, err = json.Marshal(doc); err != nil {
		return nil, errors.Wrap(err, "write the manifest with the cloud's value")
	}
	out := input.ProtoReflect().New().Interface()
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(b, out); err != nil {
		return nil, errors.Wrapf(err, "the cloud's value of %s does not fit the manifest", path)
	}
	return out, nil
}
