package savedplan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
)

// PlanFormat names the format of a saved plan, so that a file of another format (or version) is
// refused rather than misread.
const PlanFormat = "clusterplane.dev/plan/v1"

// Plan is what a review saw, saved by `preview --save-plan` and applied by `up --plan`: for every
// stack, the manifest's digest, the stack's last update and the engine's planned steps. It is our
// own record rather than Pulumi's update plan (still experimental in 3.259, and holding every
// resource's inputs, secrets among them as ciphertext): it holds names, operations and the
// fields that change, never a value, so no secret can be in it.
type Plan struct {
	Format string `json:"format"`
	// Created is when the preview ran, RFC 3339, for the reader.
	Created string                 `json:"created"`
	Stacks  []outcome.PlannedStack `json:"stacks"`
}

// ManifestDigest is the digest of a stack input's manifest: sha256 of its deterministic encoding.
// The provider config (where a token may be) is not part of it: the manifest is what is reviewed.
func ManifestDigest(input proto.Message) string {
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(apikinds.Target(input))
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// FieldDigests are a digest of each field a stack input's manifest sets (metadata and spec, the
// provider config left out as ManifestDigest leaves it), by its path as the manifest writes it
// ("spec.defaultNodePool.nodeCount"): a message field is walked into, any other field (a list,
// a map) is one. A digest, not the value: the plan holds no value.
func FieldDigests(input proto.Message) map[string]string {
	out := map[string]string{}
	digestFields(apikinds.Target(input).ProtoReflect(), "", out)
	return out
}

func digestFields(m protoreflect.Message, prefix string, out map[string]string) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		path := fd.JSONName()
		if prefix != "" {
			path = prefix + "." + path
		}
		if opts, ok := fd.Options().(*descriptorpb.FieldOptions); ok && opts.GetDebugRedact() {
			// A secret gets no digest: a short one could be guessed from it.
			return true
		}
		if fd.Message() != nil && !fd.IsList() && !fd.IsMap() {
			digestFields(v.Message(), path, out)
			return true
		}
		// The field alone in a message of its type, encoded as the manifest's digest is.
		one := m.New()
		one.Set(fd, v)
		data, err := proto.MarshalOptions{Deterministic: true}.Marshal(one.Interface())
		if err == nil {
			sum := sha256.Sum256(data)
			out[path] = hex.EncodeToString(sum[:8])
		}
		return true
	})
}

// EditedFields are the paths whose digests differ between two FieldDigests, sorted.
func EditedFields(reviewed, now map[string]string) []string {
	var out []string
	for path, d := range now {
		if reviewed[path] != d {
			out = append(out, path)
		}
	}
	for path := range reviewed {
		if _, ok := now[path]; !ok {
			out = append(out, path)
		}
	}
	sort.Strings(out)
	return out
}

// PlannedSteps are a result's steps as a plan holds them. Refresh steps are left out: reading the
// cloud changes nothing, and what the cloud changed shows in the steps that undo it.
func PlannedSteps(res stackstate.Result) []outcome.PlannedStep {
	out := []outcome.PlannedStep{}
	for _, s := range res.Steps {
		if s.Action == string(apitype.OpRefresh) || s.Action == string(apitype.OpSame) || s.Action == string(apitype.OpRead) {
			continue
		}
		fields := append([]string(nil), s.Paths...)
		sort.Strings(fields)
		out = append(out, outcome.PlannedStep{URN: s.URN, Op: s.Action, Fields: fields})
	}
	return out
}

func PlannedUpdate(u *stackstate.Update) *outcome.PlannedUpdate {
	if u == nil {
		return nil
	}
	return &outcome.PlannedUpdate{Version: u.Version, Operation: u.Operation, Result: u.Result, Ended: u.Ended}
}

// PlanMovedError is a stack whose world moved since its plan was saved: up --plan applies nothing.
type PlanMovedError struct {
	Stack string
	// Moved says each thing that moved, in words.
	Moved []string
}

func (e *PlanMovedError) Error() string {
	return "the plan no longer holds for " + e.Stack + ": " + strings.Join(e.Moved, "; ")
}

// ChangePaths are the changes' paths, in their order.
func ChangePaths(changes []diff.Change) []string {
	var out []string
	for _, c := range changes {
		out = append(out, c.Path)
	}
	return out
}

// PathsOrNone is paths joined, or "none".
func PathsOrNone(paths []string) string {
	if len(paths) == 0 {
		return "none"
	}
	return strings.Join(paths, ", ")
}

// SameUpdate tells whether two last updates are one: by version where the backend numbers them.
func SameUpdate(a, b *outcome.PlannedUpdate) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// StepsDiffer says, in words, how a fresh preview's steps differ from the planned ones. A step
// of the same resource and operation that changes other fields is said as those fields.
func StepsDiffer(planned, now []outcome.PlannedStep) []string {
	var out []string
	paired := map[int]bool{}
	for _, s := range now {
		if slices.ContainsFunc(planned, func(p outcome.PlannedStep) bool { return sameStep(p, s) }) {
			continue
		}
		if i := slices.IndexFunc(planned, func(p outcome.PlannedStep) bool { return p.URN == s.URN && p.Op == s.Op }); i >= 0 && !paired[i] {
			paired[i] = true
			var parts []string
			if added := without(s.Fields, planned[i].Fields); len(added) > 0 {
				parts = append(parts, "also changes "+strings.Join(added, ", "))
			}
			if dropped := without(planned[i].Fields, s.Fields); len(dropped) > 0 {
				parts = append(parts, "no longer changes "+strings.Join(dropped, ", "))
			}
			out = append(out, "a fresh preview's "+s.Op+" of "+outcome.ShortURN(s.URN)+" "+strings.Join(parts, " and ")+
				" (the cloud or the stack changed since the review)")
			continue
		}
		out = append(out, "a fresh preview would "+s.String()+", which the plan does not say (the cloud or the stack changed since)")
	}
	for i, p := range planned {
		if !paired[i] && !slices.ContainsFunc(now, func(s outcome.PlannedStep) bool { return sameStep(p, s) }) {
			out = append(out, "the plan says "+p.String()+", which a fresh preview would no longer do")
		}
	}
	if len(out) == 0 && len(planned) == len(now) {
		for i := range now {
			if !sameStep(planned[i], now[i]) {
				return []string{"a fresh preview would do the planned steps in another order"}
			}
		}
	}
	return out
}

// without are the items of a that b lacks, in a's order.
func without(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func sameStep(a, b outcome.PlannedStep) bool {
	return a.URN == b.URN && a.Op == b.Op && slices.Equal(a.Fields, b.Fields)
}

// Short is a digest's first characters, enough to tell two apart in a message.
func Short(digest string) string {
	d := strings.TrimPrefix(digest, "sha256:")
	if len(d) > 12 {
		d = d[:12]
	}
	return d
}

// NewPlan is the plan of previewed outcomes, each with its Planned part (PreviewPlan's). A stack
// without one (its preview failed) has no plan: none is made, and the error names it.
func NewPlan(outcomes []outcome.Outcome, now time.Time) (*Plan, error) {
	p := &Plan{Format: PlanFormat, Created: now.UTC().Format(time.RFC3339)}
	var missing []string
	for _, o := range outcomes {
		if o.Planned == nil {
			missing = append(missing, o.Target.Key())
			continue
		}
		p.Stacks = append(p.Stacks, *o.Planned)
	}
	if len(missing) > 0 {
		return nil, errors.Errorf("no plan saved: the preview of %s did not finish, and a plan covers every stack", strings.Join(missing, ", "))
	}
	return p, nil
}

// Marshal is the plan as its file holds it: indented JSON, for a reviewer to read.
func (p *Plan) Marshal() ([]byte, error) {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, errors.Wrap(err, "write the plan")
	}
	return append(data, '\n'), nil
}

// ReadPlan reads a plan file's content; name is the file, for errors.
func ReadPlan(name string, data []byte) (*Plan, error) {
	var p Plan
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, errors.Wrapf(err, "read the plan %s: not a plan file written by preview --save-plan", name)
	}
	if p.Format != PlanFormat {
		return nil, errors.Errorf("%s is not a clusterplane plan of format %s (it says %q): save it again with preview --save-plan", name, PlanFormat, p.Format)
	}
	seen := map[string]bool{}
	for _, s := range p.Stacks {
		if s.Stack == "" || s.Digest == "" {
			return nil, errors.Errorf("read the plan %s: a stack without its name or manifest digest", name)
		}
		if seen[s.Stack] {
			return nil, errors.Errorf("read the plan %s: stack %s is planned twice", name, s.Stack)
		}
		seen[s.Stack] = true
	}
	return &p, nil
}

// Stack is the plan's part for stack key, nil when the plan has none.
func (p *Plan) Stack(key string) *outcome.PlannedStack {
	for i := range p.Stacks {
		if p.Stacks[i].Stack == key {
			return &p.Stacks[i]
		}
	}
	return nil
}

// Files are the manifests' files the plan was made from, each once, in the plan's order.
func (p *Plan) Files() []string {
	var out []string
	for _, s := range p.Stacks {
		if s.File != "" && !slices.Contains(out, s.File) {
			out = append(out, s.File)
		}
	}
	return out
}
