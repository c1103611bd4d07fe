package program

import (
	"encoding/json"
	"io"
	"os"

	"github.com/clusterplane/clusterplane/pkg/stackinput"
	"github.com/clusterplane/clusterplane/pkg/validation"
	"github.com/pkg/errors"
)

// Stdin is the file name that stands for standard input.
const Stdin = "-"

// MaxFileSize bounds what Read takes in: a manifest is a few kilobytes, so anything near this
// is a mistake, not a manifest.
const MaxFileSize = 4 << 20

// Read returns the text of file, or of stdin when file is Stdin, refusing more than MaxFileSize.
func Read(file string, stdin io.Reader) ([]byte, error) {
	r := stdin
	if file != Stdin {
		f, err := os.Open(file)
		if err != nil {
			return nil, errors.Wrap(err, "read stack input")
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, errors.Wrapf(err, "read stack input %s", file)
	}
	if len(data) > MaxFileSize {
		return nil, errors.Errorf("%s: larger than %d bytes; a manifest or stack input is far smaller", file, MaxFileSize)
	}
	return data, nil
}

// Verdict is what validate found in one file. It is the one place where the programs' validate
// and `clusterplane validate` load a file and decide.
type Verdict struct {
	// File names the file as it was given; Stdin for standard input.
	File string
	// Kind is the kind the file was read as; "" when it was not read as any.
	Kind string
	// Skipped says why the file was not validated at all; "" when it was.
	Skipped string
	// Err is nil when the file is valid. It names the file, and validation.Violations(Err)
	// lists the broken rules.
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

// violationJSON is one broken rule in a verdict's JSON form.
type violationJSON struct {
	Field   string `json:"field"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// MarshalJSON writes {"file", "kind", "status", "reason" (skipped), "error" (a problem other than
// broken rules, e.g. an unknown field), "violations": [{"field", "rule", "message"}]}.
func (v Verdict) MarshalJSON() ([]byte, error) {
	out := struct {
		File       string          `json:"file"`
		Kind       string          `json:"kind,omitempty"`
		Status     string          `json:"status"`
		Reason     string          `json:"reason,omitempty"`
		Error      string          `json:"error,omitempty"`
		Violations []violationJSON `json:"violations,omitempty"`
	}{File: v.File, Kind: v.Kind, Status: v.Status(), Reason: v.Skipped}
	for _, violation := range validation.Violations(v.Err) {
		out.Violations = append(out.Violations, violationJSON{violation.Field, violation.RuleID, violation.Message})
	}
	if v.Err != nil && len(out.Violations) == 0 {
		out.Error = v.Err.Error()
	}
	return json.Marshal(out)
}
