// Package policy checks manifests against an organisation's own rules, written in CEL in a YAML
// file: "production clusters are highly available", "no pool above 20 nodes", "no change that
// adds more than $500 a month". The rules are compiled once, when the file is loaded, so that a
// bad rule is refused with its file, line and column before any manifest is read; each is then
// evaluated offline over a manifest as the user wrote it (apiVersion, kind, metadata, spec), the
// manifest it replaces (old, null on a create) and its monthly cost from the repository's price
// table (pkg/change/cost), within a cost limit so that no rule can run for long.
package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common"
	"cel.dev/cel-go/ext"
	"github.com/pkg/errors"
	"go.yaml.in/yaml/v3"

	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
)

// Env is the environment variable that names a policy file when --policy does not.
const Env = "CLUSTERPLANE_POLICY"

// Level is what a broken rule does: deny refuses the manifest, warn only says so.
type Level string

const (
	Deny Level = "deny"
	Warn Level = "warn"
)

// MaxCost bounds one rule's evaluation, in CEL's cost units (roughly one per operation and per
// element a comprehension visits): a rule over a manifest needs a few hundred, and a rule that
// loops over lists of lists must end with an error, not after minutes.
const MaxCost = 1_000_000

// MaxBytes bounds a policy file: rules are short.
const MaxBytes = 1 << 20

// MaxPolicyCost bounds the evaluation of all of a policy's rules over one manifest, in the same
// units: each rule is bounded by MaxCost, but a file of thousands of costly rules was not (a
// 1 MiB policy of looping warnings took 527 s for one manifest). Five costly rules' worth, a
// few seconds; a policy of cheap rules (a few hundred units each) never comes near it.
const MaxPolicyCost = 5 * MaxCost

// MaxRules bounds how many rules a policy holds.
const MaxRules = 1000

// Policy is a policy file's rules, compiled.
type Policy struct {
	// File names the policy file as it was given.
	File  string
	Rules []*Rule
}

// Rule is one compiled rule.
type Rule struct {
	Name    string
	Message string
	Level   Level
	// Field is the manifest field the rule is about (e.g. spec.region): a broken rule points at
	// its line. Empty points at the manifest's kind.
	Field string
	// Kinds limits the rule to manifests of these kinds (any case); empty is every kind.
	Kinds []string
	// Expression is the CEL text; Line and Column where it starts in the policy file, File.
	Expression   string
	File         string
	Line, Column int
	program      cel.Program
	// readsCost tells a rule whose expression reads the variable cost: its denial says the
	// change's cost beside it.
	readsCost bool
	// at is where a place of the expression (line from 1, column from 0) is in the policy file;
	// fieldLine and fieldColumn are where the rule's field is written, 0 when it is not: a rule
	// that names a field its kind does not have is the rule's mistake, said at the rule.
	at                     func(common.Location) (line, column int)
	fieldLine, fieldColumn int
}

// fileRule is a rule as the file writes it.
type fileRule struct {
	Name       string   `yaml:"name"`
	Message    string   `yaml:"message"`
	Level      string   `yaml:"level"`
	Field      string   `yaml:"field"`
	Kinds      []string `yaml:"kinds"`
	Expression string   `yaml:"expression"`
}

// Load reads and compiles the policy file at path.
func Load(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, errors.Wrap(err, "read the policy")
	}
	if len(data) > MaxBytes {
		return nil, errors.Errorf("%s: is larger than %d MiB, the limit for a policy", path, MaxBytes>>20)
	}
	return Parse(path, data)
}

// LoadAll reads and compiles every policy file paths name, in order, as one policy: a folder
// stands for its *.yaml and *.yml files in name order. Rule names must be unique across all the
// files, since a result names its rule: a second rule of a name is refused at its line.
func LoadAll(paths []string) (*Policy, error) {
	var files []string
	for _, path := range paths {
		info, err := os.Stat(path)
		if err != nil {
			return nil, errors.Wrap(err, "read the policy")
		}
		if !info.IsDir() {
			files = append(files, path)
			continue
		}
		var found []string
		for _, pattern := range []string{"*.yaml", "*.yml"} {
			m, err := filepath.Glob(filepath.Join(path, pattern))
			if err != nil {
				return nil, errors.Wrap(err, "read the policy")
			}
			found = append(found, m...)
		}
		if len(found) == 0 {
			return nil, errors.Errorf("%s: a folder with no policy files (*.yaml) in it", path)
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	all := &Policy{File: strings.Join(files, ", ")}
	seen := map[string]*Rule{}
	var problems []string
	for _, file := range files {
		p, err := Load(file)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for _, r := range p.Rules {
			if first, ok := seen[r.Name]; ok {
				problems = append(problems, fmt.Sprintf("%s:%d:%d: rule %q: a second rule of this name (the first is at %s:%d): names must be unique across the policy files",
					file, r.Line, r.Column, r.Name, first.File, first.Line))
				continue
			}
			seen[r.Name] = r
			all.Rules = append(all.Rules, r)
		}
	}
	if problems != nil {
		return nil, errors.New(strings.Join(problems, "\n"))
	}
	return all, nil
}

// Parse compiles the policy text data, named file. Every bad rule is reported at once, each
// with its position in the file.
func Parse(file string, data []byte) (*Policy, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, errors.Errorf("%s: not valid YAML: %s", file, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.Errorf("%s: a policy is a mapping with a list of rules under `rules:`", file)
	}
	root := doc.Content[0]
	var rulesNode *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		switch k := root.Content[i]; k.Value {
		case "rules":
			rulesNode = root.Content[i+1]
		default:
			return nil, errors.Errorf("%s:%d:%d: unknown key %q: a policy has only `rules:`", file, k.Line, k.Column, k.Value)
		}
	}
	if rulesNode == nil || rulesNode.Kind != yaml.SequenceNode || len(rulesNode.Content) == 0 {
		return nil, errors.Errorf("%s: holds no rules: list them under `rules:`", file)
	}
	if len(rulesNode.Content) > MaxRules {
		return nil, errors.Errorf("%s:%d:%d: rules: %d rules, more than the %d a policy may hold", file, rulesNode.Line, rulesNode.Column,
			len(rulesNode.Content), MaxRules)
	}
	env, err := newEnv()
	if err != nil {
		return nil, err
	}
	p := &Policy{File: file}
	var problems []string
	names := map[string]bool{}
	for _, n := range rulesNode.Content {
		r, errs := compile(env, file, data, n)
		problems = append(problems, errs...)
		if r == nil {
			continue
		}
		if names[r.Name] {
			problems = append(problems, fmt.Sprintf("%s:%d:%d: rule %q: a second rule of this name: names must be unique", file, n.Line, n.Column, r.Name))
		}
		names[r.Name] = true
		p.Rules = append(p.Rules, r)
	}
	if problems != nil {
		return nil, errors.New(strings.Join(problems, "\n"))
	}
	return p, nil
}

// compile checks and compiles one rule; the problems are each a line with the position.
func compile(env *cel.Env, file string, data []byte, n *yaml.Node) (*Rule, []string) {
	at := func(n *yaml.Node) string { return fmt.Sprintf("%s:%d:%d", file, n.Line, n.Column) }
	if n.Kind != yaml.MappingNode {
		return nil, []string{at(n) + ": a rule is a mapping with name, message, level and expression"}
	}
	var fr fileRule
	problems, exprNode, fieldNode := ruleKeys(at, n)
	if err := n.Decode(&fr); err != nil {
		return nil, append(problems, fmt.Sprintf("%s: %s", at(n), strings.TrimPrefix(err.Error(), "yaml: ")))
	}
	name := fr.Name
	if name == "" {
		problems = append(problems, at(n)+": a rule needs a name")
		name = fmt.Sprintf("at line %d", n.Line)
	}
	prefix := func(n *yaml.Node) string { return fmt.Sprintf("%s: rule %q", at(n), name) }
	if fr.Message == "" {
		problems = append(problems, prefix(n)+": needs a message, what to tell whoever breaks it")
	}
	level := Level(fr.Level)
	switch level {
	case "":
		level = Deny
	case Deny, Warn:
	default:
		problems = append(problems, fmt.Sprintf("%s: level %q: want deny or warn", prefix(n), fr.Level))
	}
	if exprNode == nil || strings.TrimSpace(fr.Expression) == "" {
		return nil, append(problems, prefix(n)+": needs an expression, CEL that is true when the manifest keeps the rule")
	}
	r := &Rule{Name: name, Message: fr.Message, Level: level, Field: fr.Field, Kinds: fr.Kinds, Expression: fr.Expression, File: file}
	r.Line, r.Column = exprNode.Line, exprNode.Column
	r.at = func(loc common.Location) (int, int) { return place(data, exprNode, loc) }
	if fieldNode != nil {
		r.fieldLine, r.fieldColumn = fieldNode.Line, fieldNode.Column
	}
	ast, iss := env.Compile(fr.Expression)
	if iss != nil && iss.Err() != nil {
		for _, e := range iss.Errors() {
			line, column := place(data, exprNode, e.Location)
			problems = append(problems, fmt.Sprintf("%s:%d:%d: rule %q: %s", file, line, column, name, e.Message))
		}
		return nil, problems
	}
	if t := ast.OutputType(); !t.IsExactType(cel.BoolType) && !t.IsExactType(cel.DynType) {
		problems = append(problems, fmt.Sprintf("%s:%d:%d: rule %q: the expression is a %s: it must be true or false",
			file, r.Line, r.Column, name, t))
		return nil, problems
	}
	prg, err := env.Program(ast, cel.CostLimit(MaxCost), cel.InterruptCheckFrequency(100), cel.EvalOptions(cel.OptTrackCost))
	if err != nil {
		return nil, append(problems, fmt.Sprintf("%s:%d:%d: rule %q: %v", file, r.Line, r.Column, name, err))
	}
	r.program = prg
	// The checker resolved every identifier: a reference named cost is the variable, never a
	// field of that name (spec.cost) or the word in a string.
	for _, ref := range ast.NativeRep().ReferenceMap() {
		r.readsCost = r.readsCost || ref.Name == costVariable
	}
	if problems != nil {
		return nil, problems
	}
	return r, nil
}

// ruleKeys checks the keys of the rule n, and finds the nodes of its expression and its field
// (nil when not written, or not text).
func ruleKeys(at func(*yaml.Node) string, n *yaml.Node) (problems []string, exprNode, fieldNode *yaml.Node) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "name", "message", "level", "field", "expression":
			if v.Kind != yaml.ScalarNode {
				problems = append(problems, fmt.Sprintf("%s: %s: must be text", at(v), k.Value))
				continue
			}
		case "kinds":
			problems = append(problems, unknownKinds(at, v)...)
			if v.Kind != yaml.SequenceNode {
				// Said once, above; the decode below would say it again in its own words.
				n.Content[i+1] = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			}
		default:
			problems = append(problems, fmt.Sprintf("%s: unknown key %q: a rule has name, message, level, field, kinds and expression", at(k), k.Value))
			continue
		}
		switch k.Value {
		case "expression":
			exprNode = v
		case "field":
			fieldNode = v
		}
	}
	return problems, exprNode, fieldNode
}

// unknownKinds are the problems of a rule's kinds list: an entry that names no kind would make
// the rule apply to nothing, silently.
func unknownKinds(at func(*yaml.Node) string, v *yaml.Node) []string {
	if v.Kind != yaml.SequenceNode {
		return []string{at(v) + ": kinds: a list of kinds, as manifests write their kind field"}
	}
	known := apikinds.Kinds()
	var problems []string
	for _, k := range v.Content {
		if k.Kind == yaml.ScalarNode && slices.ContainsFunc(known, func(name string) bool { return strings.EqualFold(name, k.Value) }) {
			continue
		}
		msg := fmt.Sprintf("%s: kinds: %q is no kind", at(k), k.Value)
		if near := apikinds.NearestKind(k.Value); near != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", near)
		}
		problems = append(problems, msg+"; the kinds are "+strings.Join(known, ", "))
	}
	return problems
}

// place is where a CEL error's location (line from 1, column from 0, within the expression)
// falls in the policy file. A literal block (|) keeps the expression's lines; every other style
// folds the file's lines into one, a space between each, so the column is walked along them.
func place(data []byte, n *yaml.Node, loc common.Location) (int, int) {
	if loc == nil || loc.Line() <= 0 {
		return n.Line, n.Column
	}
	lines := strings.Split(string(data), "\n")
	if n.Style == yaml.LiteralStyle {
		return n.Line + loc.Line(), indentOf(lines, n.Line+1) + loc.Column() + 1
	}
	if loc.Line() > 1 {
		// A folded block's more indented lines keep their line breaks: only the line is sure.
		return n.Line + loc.Line(), indentOf(lines, n.Line+loc.Line()) + 1
	}
	// line and column (from 1) of the expression's first character.
	line, column := n.Line, n.Column
	switch n.Style {
	case yaml.FoldedStyle:
		line = n.Line + 1
		column = indentOf(lines, line) + 1
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		column++
	}
	offset := loc.Column()
	for line <= len(lines) {
		rest := len(strings.TrimRight(lines[line-1], " \t\r")) - (column - 1)
		if offset <= rest {
			return line, column + offset
		}
		offset -= rest + 1 // the space that stands for the line break
		line++
		column = indentOf(lines, line) + 1
	}
	return n.Line, n.Column
}

// indentOf counts the spaces that start line (from 1) of lines.
func indentOf(lines []string, line int) int {
	if line < 1 || line > len(lines) {
		return 0
	}
	return len(lines[line-1]) - len(strings.TrimLeft(lines[line-1], " "))
}

// newEnv is the rules' environment: the manifest's parts, old and cost, with CEL's string
// functions (split, for versions) and optional fields (spec.?autoScale.orValue(false)).
func newEnv() (*cel.Env, error) {
	env, err := cel.NewEnv(
		cel.Variable("apiVersion", cel.StringType),
		cel.Variable("kind", cel.StringType),
		cel.Variable("metadata", cel.DynType),
		cel.Variable("spec", cel.DynType),
		cel.Variable("old", cel.DynType),
		cel.Variable(costVariable, cel.DynType),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		ext.Strings(),
	)
	return env, errors.Wrap(err, "the policy environment")
}
