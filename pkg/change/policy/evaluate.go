package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/pkg/errors"
	"go.yaml.in/yaml/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Input is one manifest to check: its file, as named and as written (for the positions of
// fields), its stack input (a bare manifest is read into one), and the stack input it replaces,
// nil on a create.
type Input struct {
	File     string
	Data     []byte
	Manifest proto.Message
	Old      proto.Message
	// Prices are the prices of the manifest's cloud, handed in by its driver (the repository's
	// table, so that a rule judges the same offline and online); nil for a manifest of no cloud,
	// whose cost a rule cannot read.
	Prices *cost.Prices
}

// Result is one rule a manifest breaks.
type Result struct {
	Rule    string `json:"rule"`
	Level   Level  `json:"level"`
	Message string `json:"message"`
	// Error says why the rule could not be evaluated (a field the manifest does not have, the
	// cost limit): such a rule counts as broken, so that a deny rule never passes by mistake.
	Error string `json:"error,omitempty"`
	// Policy is where the rule is written: the policy file and its expression's line.
	Policy string `json:"policy"`
	// File, Line and Column are where the manifest breaks it: the rule's field, else the kind.
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	Field  string `json:"field,omitempty"`
	// Cost is the manifest's cost change as the rule saw it, e.g. "+$864.00/month ($96.00 →
	// $960.00/month; ...)", when the rule reads cost: a denial for cost says by how much.
	Cost string `json:"cost,omitempty"`
}

// Denied tells whether the result refuses the manifest.
func (r Result) Denied() bool { return r.Level == Deny }

// String is the result as `FILE:LINE:COLUMN: field: denied by policy rule NAME (POLICY:LINE):
// message`, "warning:" in place of "denied by" for a warning.
func (r Result) String() string {
	var b strings.Builder
	b.WriteString(r.File)
	if r.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", r.Line, r.Column)
	}
	b.WriteString(": ")
	if r.Field != "" {
		b.WriteString(r.Field + ": ")
	}
	if r.Denied() {
		b.WriteString("denied by ")
	} else {
		b.WriteString("warning: ")
	}
	fmt.Fprintf(&b, "policy rule %q (%s): %s%s", r.Rule, r.Policy, r.Message, r.asides())
	return b.String()
}

// asides are what a result's line says after the rule's message, the same in every form: the
// cost the rule saw, and why it could not be evaluated.
func (r Result) asides() string {
	var out string
	if r.Cost != "" {
		out += " (cost: " + r.Cost + ")"
	}
	if r.Error != "" {
		out += " (the rule could not be evaluated: " + r.Error + ")"
	}
	return out
}

// Denied tells whether any result refuses its manifest.
func Denied(results []Result) bool {
	for _, r := range results {
		if r.Denied() {
			return true
		}
	}
	return false
}

// Error is the denials of a manifest, as an error the deploy commands report in a row whose
// outcome already says "denied by policy": each line is `rule NAME (POLICY:LINE) at
// FILE:LINE:COLUMN field: message`.
type Error struct{ Results []Result }

func (e *Error) Error() string {
	var lines []string
	for _, r := range e.Results {
		if !r.Denied() {
			continue
		}
		at := r.File
		if r.Line > 0 {
			at += fmt.Sprintf(":%d:%d", r.Line, r.Column)
		}
		if r.Field != "" {
			at += " " + r.Field
		}
		line := fmt.Sprintf("rule %q (%s) at %s: %s%s", r.Rule, r.Policy, at, r.Message, r.asides())
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// Evaluate checks in against every rule of the policy that applies to its kind and returns the
// rules it breaks, in the file's order. The cost is priced from the repository's table (never a
// cloud's API): a policy is offline, and gives the same answer with a token or without.
func (p *Policy) Evaluate(in Input) ([]Result, error) {
	vars, delta, err := variables(in)
	if err != nil {
		return nil, errors.Wrapf(err, "%s: read for the policy", in.File)
	}
	kind, _ := vars["kind"].(string)
	var out []Result
	var spent uint64
	for _, r := range p.Rules {
		if !r.applies(kind) {
			continue
		}
		val, details, err := r.program.Eval(vars)
		if details != nil && details.ActualCost() != nil {
			spent += *details.ActualCost()
		}
		if spent > MaxPolicyCost {
			file := r.File
			if file == "" {
				file = p.File
			}
			return nil, errors.Errorf("%s:%d:%d: rule %q: the policy's rules together ran past %d cost units over %s, the "+
				"bound of one manifest's check, here: make its rules cheaper, or fewer", file, r.Line, r.Column, r.Name,
				uint64(MaxPolicyCost), in.File)
		}
		file := r.File
		if file == "" {
			file = p.File
		}
		result := Result{Rule: r.Name, Level: r.Level, Message: r.Message, Policy: fmt.Sprintf("%s:%d", file, r.Line),
			File: in.File, Field: r.Field}
		if delta != nil && r.readsCost {
			result.Cost = delta.String()
		}
		_, _, misnamedField := unknownStep(apikinds.Target(in.Manifest).ProtoReflect().Descriptor(), r.Field)
		switch {
		case err != nil:
			result.Error = err.Error()
		case val.Value() == true && !misnamedField:
			continue
		case val.Value() == true:
		case val.Value() != false:
			result.Error = fmt.Sprintf("the expression gave %v, not true or false", val.Value())
		}
		path := r.Field
		if path == "" {
			path = "kind"
		}
		result.Line, result.Column = Locate(in.Data, path)
		r.misnamed(&result, in, err)
		out = append(out, result)
	}
	return out, nil
}

// misnamed points result at the rule, in the policy file, when what broke it is a field name
// the rule misspelt, not the manifest: its expression reads a key that no field of the
// manifest's kind has (spec.defaultNodePool.nodeCont), or its field names a path the kind does not
// have. A key the kind has but the manifest leaves out (an optional spec.vpc) stays the
// manifest's, at its line: has() is the rule's way to read it.
func (r *Rule) misnamed(result *Result, in Input, evalErr error) {
	md := apikinds.Target(in.Manifest).ProtoReflect().Descriptor()
	if key, ok := noSuchKey(evalErr); ok && !hasField(md, key) && r.at != nil {
		result.File, result.Field = r.File, ""
		result.Line, result.Column = r.at(keyAt(r.Expression, key))
		result.Error = fmt.Sprintf("%s has no field %s%s; the manifest is %s", kindName(md), key, hint(key, fieldNames(md)), in.File)
		return
	}
	if step, names, ok := unknownStep(md, r.Field); ok && r.fieldLine > 0 {
		result.File, result.Line, result.Column, result.Field = r.File, r.fieldLine, r.fieldColumn, ""
		result.Error = fmt.Sprintf("its field %s: %s has no %s%s; the manifest is %s", r.Field, kindName(md), step, hint(step, names), in.File)
	}
}

// costVariable is the variable a rule reads the change's monthly cost from (cost.monthly, ...).
const costVariable = "cost"

// applies tells whether the rule is for manifests of kind.
func (r *Rule) applies(kind string) bool {
	if len(r.Kinds) == 0 {
		return true
	}
	for _, k := range r.Kinds {
		if strings.EqualFold(k, kind) {
			return true
		}
	}
	return false
}

// variables are what a rule sees: the manifest's apiVersion, kind, metadata and spec as the file
// writes them (JSON's camelCase names; fields with a value of their own, like false or 0, are
// there even when not written; optional ones only when written), old the same of the replaced
// manifest or null, and cost the monthly cost and its delta, or null for a kind not priced.
func variables(in Input) (map[string]any, *cost.Delta, error) {
	manifest, err := asMap(apikinds.Target(in.Manifest))
	if err != nil {
		return nil, nil, err
	}
	vars := map[string]any{"apiVersion": "", "kind": "", "metadata": map[string]any{}, "spec": map[string]any{}, "old": nil, "cost": nil}
	for k, v := range manifest {
		if _, ok := vars[k]; ok && k != "old" && k != "cost" {
			vars[k] = v
		}
	}
	if in.Old != nil {
		if vars["old"], err = asMap(apikinds.Target(in.Old)); err != nil {
			return nil, nil, err
		}
	}
	if in.Prices != nil {
		d := cost.Compare(in.Old, in.Manifest, *in.Prices)
		unknown := make([]any, len(d.New.Unknown))
		for i, s := range d.New.Unknown {
			unknown[i] = s
		}
		vars["cost"] = map[string]any{
			"monthly":      map[string]any{"min": d.New.Min, "max": d.New.Max},
			"delta":        map[string]any{"min": d.Min, "max": d.Max},
			"unknownSizes": unknown,
			"source":       d.New.Source,
			"date":         d.New.Date,
		}
		return vars, &d, nil
	}
	return vars, nil, nil
}

// asMap is a manifest as JSON's maps, lists, strings, booleans, whole numbers (int64) and
// numbers (float64).
func asMap(m proto.Message) (map[string]any, error) {
	data, err := protojson.MarshalOptions{EmitDefaultValues: true}.Marshal(m)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return numbers(v).(map[string]any), nil
}

// numbers turns JSON numbers into int64 when whole, float64 otherwise.
func numbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = numbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = numbers(e)
		}
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	}
	return v
}

// Locate is the line and column of the field path (spec.region, spec.nodePools[1].size,
// metadata.labels.team) in a manifest's text, under target: in a stack input; the nearest
// written parent's when the field itself is not written, 0, 0 when none is.
func Locate(data []byte, path string) (line, column int) {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return 0, 0
	}
	node := doc.Content[0]
	if target := value(node, "target"); target != nil {
		node = target
	}
	for _, seg := range segments(path) {
		var next, key *yaml.Node
		if i, err := strconv.Atoi(seg); err == nil && node.Kind == yaml.SequenceNode {
			if i >= 0 && i < len(node.Content) {
				next, key = node.Content[i], node.Content[i]
			}
		} else if node.Kind == yaml.MappingNode {
			for j := 0; j+1 < len(node.Content); j += 2 {
				if node.Content[j].Value == seg {
					key, next = node.Content[j], node.Content[j+1]
				}
			}
		}
		if next == nil {
			break
		}
		line, column, node = key.Line, key.Column, next
	}
	return line, column
}

// segments splits spec.nodePools[1].size into spec, nodePools, 1, size.
func segments(path string) []string {
	path = strings.NewReplacer("[", ".", "]", "", `"`, "").Replace(path)
	var out []string
	for _, s := range strings.Split(path, ".") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// value is the value of key in the mapping m, nil when there is none.
func value(m *yaml.Node, key string) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
