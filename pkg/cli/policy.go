package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/cloud/catalogue"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/pulumi/program"
	"github.com/spf13/cobra"
)

// PolicyFlag adds --policy to cmd: the files of the organisation's rules (pkg/change/policy) that every
// manifest must keep, $CLUSTERPLANE_POLICY when the flag is not given. The flag repeats, and
// every file's rules apply: taking only the last would drop rules without a word.
func PolicyFlag(cmd *cobra.Command) *[]string {
	p := cmd.Flags().StringArray("policy", nil, "a file (or folder of *.yaml files) of rules in CEL every manifest must keep; repeat it for several (see docs/policy.md); default $"+policy.Env)
	_ = cmd.RegisterFlagCompletionFunc("policy", ManifestFiles)
	return p
}

// LoadPolicy compiles the policies the flag names, or $CLUSTERPLANE_POLICY; nil when neither
// does. A bad rule is an error naming the file, line and column of each: the rules are checked
// before any manifest is read.
func LoadPolicy(flag []string) (*policy.Policy, error) {
	paths := flag
	if len(paths) == 0 {
		if env := os.Getenv(policy.Env); env != "" {
			paths = []string{env}
		}
	}
	if len(paths) == 0 {
		return nil, nil
	}
	return policy.LoadAll(paths)
}

// CheckPolicy evaluates pol over the manifest of f (a stack input of p's kind), old the file it
// replaces (nil on a create). An invalid file is not checked: its own problems say more.
func CheckPolicy(pol *policy.Policy, p Program, f program.File, old *program.File) ([]policy.Result, error) {
	if pol == nil {
		return nil, nil
	}
	input, err := p.Parse(f)
	if err != nil {
		return nil, nil
	}
	in := policy.Input{File: f.Name, Data: f.Data, Manifest: input}
	if c, ok := cloudlist.OfInput(input); ok {
		prices := c.Prices()
		in.Prices = &prices
	}
	if old != nil {
		if in.Old, err = p.Parse(*old); err != nil {
			return nil, nil
		}
	}
	return pol.Evaluate(in)
}

// withPolicy adds pol's results to a valid verdict: a denial makes it invalid, with a problem
// at the field the rule names; a warning is a warning.
func withPolicy(v program.Verdict, pol *policy.Policy, p Program, f program.File) program.Verdict {
	if pol == nil || !v.Valid() {
		return v
	}
	results, err := CheckPolicy(pol, p, f, nil)
	if err != nil {
		v.Err = err
		return v
	}
	v.Policy = results
	var problems []stackinput.Problem
	for _, r := range results {
		if !r.Denied() {
			v.Warnings = append(v.Warnings, catalogue.Warning{Problem: stackinput.Problem{File: r.File, Line: r.Line,
				Column: r.Column, Path: r.Field, RuleID: "policy", Message: r.Message}, Text: r.String()})
			continue
		}
		message := fmt.Sprintf("denied by policy rule %q (%s): %s", r.Rule, r.Policy, r.Message)
		if r.Error != "" {
			message += " (the rule could not be evaluated: " + r.Error + ")"
		}
		problems = append(problems, stackinput.Problem{File: r.File, Line: r.Line, Column: r.Column, Path: r.Field,
			RuleID: "policy", Message: message})
	}
	if problems != nil {
		v.Err = &stackinput.Error{Problems: problems}
	}
	return v
}

// diffWithPolicy runs a diff (run, writing to the writer it is given) after a policy's results:
// a denial refuses the change before the diff runs (exit 1), since the diff may ask a cloud for
// its prices; warnings are said, on stderr or in the JSON as "policy".
func (a *App) diffWithPolicy(results []policy.Result, format string, run func(io.Writer) int) int {
	if format != "json" {
		for _, r := range results {
			fmt.Fprintln(a.Stderr, r)
		}
		if policy.Denied(results) {
			return exitcode.Invalid
		}
		return run(a.Stdout)
	}
	if policy.Denied(results) {
		writeJSON(a.Stdout, struct {
			Policy []policy.Result `json:"policy"`
		}{results})
		return exitcode.Invalid
	}
	if len(results) == 0 {
		return run(a.Stdout)
	}
	// The diff's JSON object gains a "policy" member: its own fields stay as they are.
	var out bytes.Buffer
	code := run(&out)
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		_, _ = a.Stdout.Write(out.Bytes())
		return code
	}
	doc["policy"], _ = json.Marshal(results)
	writeJSON(a.Stdout, doc)
	return code
}

func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
