package program

import (
	"encoding/json"
	"slices"

	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/cloud/catalogue"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

// Verdict is what validate found in one file. It is the one place where the programs' validate
// and `clusterplane validate` load a file and decide.
type Verdict struct {
	// File names the file as it was given; Stdin for standard input.
	File string
	// Kind is the kind the file was read as; "" when it was not read as any.
	Kind string
	// Skipped says why the file was not validated at all; "" when it was.
	Skipped string
	// Err is nil when the file is valid. It names the file, and stackinput.Problems(Err) lists
	// every problem with its position.
	Err error
	// Warnings are what a valid file may get wrong without being invalid: a region, a size or a
	// Kubernetes version the cloud's catalogue does not list. They never change the exit code.
	Warnings []catalogue.Warning
	// Policy are the rules of the policy (pkg/change/policy) the manifest breaks, when one was given:
	// the denials are also in Err, the warnings in Warnings.
	Policy []policy.Result
	// Note says what of a valid file only preview and up can check, "" when nothing.
	Note string
}

// Check parses and validates data, the text of file, as the program's stack input (or bare
// manifest).
func (p Program[T]) Check(file string, data []byte) Verdict {
	input := p.NewInput()
	v := Verdict{File: file, Kind: p.Kind(), Err: catalogue.ParseInput(data, file, input)}
	// An invalid file gets its warnings too (a region typo beside an unknown field): every
	// problem at once, not one fix at a time. A field that has an error gets no warning besides.
	v.Warnings = catalogue.Warnings(file, data, input)
	if problems := stackinput.Problems(v.Err); len(problems) > 0 {
		v.Warnings = slices.DeleteFunc(v.Warnings, func(w catalogue.Warning) bool {
			return slices.ContainsFunc(problems, func(p stackinput.Problem) bool { return p.Path == w.Path })
		})
	}
	return v
}

// Kind is the kind of the manifests the program deploys, e.g. "CivoKubernetesCluster": the name
// of its stack input's target message.
func (p Program[T]) Kind() string {
	return string(apikinds.Target(p.NewInput()).ProtoReflect().Descriptor().Name())
}

// Valid reports whether the file was validated and is valid.
func (v Verdict) Valid() bool { return v.Skipped == "" && v.Err == nil }

// Status is "valid", "invalid" or "skipped".
func (v Verdict) Status() string {
	switch {
	case v.Skipped != "":
		return "skipped"
	case v.Err != nil:
		return "invalid"
	default:
		return "valid"
	}
}

// MarshalJSON writes {"file", "kind", "status", "reason" (skipped), "problems": [{"file",
// "line", "column", "path", "ruleId", "message", "hint"}], "warnings", "policy", "note"}: the same
// list validate prints, as data for CI annotations.
func (v Verdict) MarshalJSON() ([]byte, error) {
	out := struct {
		File     string               `json:"file"`
		Kind     string               `json:"kind,omitempty"`
		Status   string               `json:"status"`
		Reason   string               `json:"reason,omitempty"`
		Problems []stackinput.Problem `json:"problems"`
		Warnings []catalogue.Warning  `json:"warnings,omitempty"`
		Policy   []policy.Result      `json:"policy,omitempty"`
		Note     string               `json:"note,omitempty"`
	}{File: v.File, Kind: v.Kind, Status: v.Status(), Reason: v.Skipped, Problems: stackinput.Problems(v.Err), Warnings: v.Warnings,
		Policy: v.Policy, Note: v.Note}
	if v.Err != nil && len(out.Problems) == 0 {
		out.Problems = []stackinput.Problem{{File: v.File, RuleID: "error", Message: v.Err.Error()}}
	}
	if out.Problems == nil {
		out.Problems = []stackinput.Problem{}
	}
	return json.Marshal(out)
}
