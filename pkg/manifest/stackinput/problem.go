package stackinput

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Problem is one mistake in a stack input: where it is, which rule it breaks and what to do. It
// never holds a value of the file: a token cannot be told from other values while parsing.
type Problem struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Path is the field as written in the file, e.g. "spec.defaultNodePool.nodeCont"; empty for
	// the file as a whole.
	Path string `json:"path"`
	// RuleID is the broken rule's id: a validation rule's (e.g. "int32.gte") or a parse rule's
	// (e.g. "yaml.duplicate_key", "field.unknown").
	RuleID  string `json:"ruleId"`
	Message string `json:"message"`
	// Hint says what to write instead, where a hint helps.
	Hint string `json:"hint,omitempty"`
}

// String is the problem as `FILE:LINE:COLUMN: path: message (hint)`.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", p.Line, p.Column)
	}
	b.WriteString(": ")
	if p.Path != "" {
		b.WriteString(p.Path + ": ")
	}
	b.WriteString(p.Message)
	if p.Hint != "" {
		b.WriteString(" (" + p.Hint + ")")
	}
	return b.String()
}

// Error is every problem of one stack input, sorted by position.
type Error struct {
	Problems []Problem
}

func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

func (e *Error) sort() {
	sort.SliceStable(e.Problems, func(i, j int) bool {
		a, b := e.Problems[i], e.Problems[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return a.Path < b.Path
	})
}

// Problems returns the problems inside err, or nil when err is not an *Error.
func Problems(err error) []Problem {
	var e *Error
	if errors.As(err, &e) {
		return e.Problems
	}
	return nil
}
