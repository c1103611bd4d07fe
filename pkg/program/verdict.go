package program

import (
	"encoding/json"

	"github.com/clusterplane/clusterplane/pkg/stackinput"
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
}

// Check parses and validates data, the text of file, as the program's stack input (or bare
// manifest).
func (p Program[T]) Check(file string, data []byte) Verdict {
	return Verdict{File: file, Kind: p.Kind(), Err: stackinput.Parse(data, file, p.NewInput())}
}

// Kind is the kind of the manifests the program deploys, e.g. "CivoKubernetesCluster": the name
// of its stack input's target message.
func (p Program[T]) Kind() string {
	return string(stackinput.Target(p.NewInput()).ProtoReflect().Descriptor().Name())
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
// "line", "column", "path", "ruleId", "message", "hint"}]}: the same list validate prints, as data
// for CI annotations.
func (v Verdict) MarshalJSON() ([]byte, error) {
	out := struct {
		File     string               `json:"file"`
		Kind     string               `json:"kind,omitempty"`
		Status   string               `json:"status"`
		Reason   string               `json:"reason,omitempty"`
		Problems []stackinput.Problem `json:"problems"`
	}{File: v.File, Kind: v.Kind, Status: v.Status(), Reason: v.Skipped, Problems: stackinput.Problems(v.Err)}
	if v.Err != nil && len(out.Problems) == 0 {
		out.Problems = []stackinput.Problem{{File: v.File, RuleID: "error", Message: v.Err.Error()}}
	}
	if out.Problems == nil {
		out.Problems = []stackinput.Problem{}
	}
	return json.Marshal(out)
}
