// Package validation checks manifests against their buf.validate rules and reports every broken
// rule at once, each as `field.path: message`.
package validation

import (
	"fmt"
	"sort"
	"strings"

	"buf.build/go/protovalidate"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"
)

// Violation is one broken rule: where, which rule, and what to do about it.
type Violation struct {
	// Field is the path of the offending field in proto names, e.g. "spec.default_node_pool.node_count".
	Field string
	// RuleID is the rule's stable id, e.g. "int32.gte" or "min_nodes.at_least_one".
	RuleID string
	// Message tells the user what the rule wants.
	Message string
	// Hint says what to write instead, where the value shows it ("write fra1" for Fra1); "" when
	// nothing more can be said.
	Hint string
}

// String is the violation as Go errors show it: the path as manifests write it (camelCase).
func (v Violation) String() string {
	field := Camel(v.Field)
	if field == "" {
		field = "(message)"
	}
	if v.Hint != "" {
		return field + ": " + v.Message + " (" + v.Hint + ")"
	}
	return field + ": " + v.Message
}

// Error lists every violation of one manifest.
type Error struct {
	Violations []Violation
}

func (e *Error) Error() string {
	lines := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		lines[i] = "  " + v.String()
	}
	noun := "violations"
	if len(lines) == 1 {
		noun = "violation"
	}
	return fmt.Sprintf("%d %s:\n%s", len(lines), noun, strings.Join(lines, "\n"))
}

// Validate checks msg against its rules. It returns nil, an *Error listing every violation sorted
// by field path, or an error when the rules themselves cannot be evaluated.
func Validate(msg proto.Message) error {
	out := &Error{}
	if err := protovalidate.Validate(msg); err != nil {
		var verr *protovalidate.ValidationError
		if !errors.As(err, &verr) {
			return errors.Wrap(err, "evaluate validation rules")
		}
		// The pattern each field broke, for oneMistakeOnce.
		patterns := map[string]string{}
		for _, v := range verr.Violations {
			if msg := v.Proto.GetMessage(); v.Proto.GetRuleId() == "string.pattern" && strings.HasPrefix(msg, patternPrefix) {
				patterns[protovalidate.FieldPathString(v.Proto.GetField())] = strings.TrimSuffix(strings.TrimPrefix(msg, patternPrefix), "`")
			}
		}
		for _, v := range verr.Violations {
			field := protovalidate.FieldPathString(v.Proto.GetField())
			if _, shaped := tokenShaped(field); shaped {
				continue // a map key shaped like a token: check reports it at the map, without the key
			}
			out.Violations = append(out.Violations, Violation{
				Field:   field,
				RuleID:  v.Proto.GetRuleId(),
				Message: inWords(v.Proto.GetRuleId(), v.Proto.GetMessage()),
				Hint:    hint(v),
			})
		}
		out.Violations = oneMistakeOnce(out.Violations, patterns)
	}
	out.Violations = append(out.Violations, check(msg.ProtoReflect(), "")...)
	for i, v := range out.Violations {
		out.Violations[i] = place(msg.ProtoReflect().Descriptor(), v)
	}
	if len(out.Violations) == 0 {
		return nil
	}
	sort.SliceStable(out.Violations, func(i, j int) bool {
		return out.Violations[i].Field < out.Violations[j].Field
	})
	return out
}

// Violations returns the violations inside err, or nil when err is not a validation error.
func Violations(err error) []Violation {
	var verr *Error
	if errors.As(err, &verr) {
		return verr.Violations
	}
	return nil
}
