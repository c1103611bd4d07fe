// Command docgen writes docs/pitfalls.md: the table of changes that replace a resource or are
// refused, generated from the effects tables (pkg/change/effects), inside the prose of
// pitfalls.md.tmpl. `make protos` runs it, so `make check-generated` fails when a table changes
// and the committed page does not. With a file argument it writes that file, else standard
// output.
package main

import (
	_ "embed"
	"fmt"
	"os"
	"strings"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

//go:embed pitfalls.md.tmpl
var page string

// tableMarker is the line of the template the table replaces.
const tableMarker = "@@TABLE@@"

func main() {
	if len(os.Args) > 2 {
		fmt.Fprintln(os.Stderr, "usage: docgen [FILE]")
		os.Exit(2)
	}
	text, err := generate()
	if err == nil {
		if len(os.Args) == 2 {
			err = errors.Wrapf(os.WriteFile(os.Args[1], []byte(text), 0o644), "writing %s", os.Args[1])
		} else {
			_, err = os.Stdout.WriteString(text)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
}

// generate returns the Pitfalls page.
func generate() (string, error) {
	specs, err := emptySpecs()
	if err != nil {
		return "", err
	}
	table, err := pitfallsTable(tables(), specs)
	if err != nil {
		return "", err
	}
	if strings.Count(page, tableMarker) != 1 {
		return "", errors.Errorf("pitfalls.md.tmpl must hold %s once", tableMarker)
	}
	return strings.TrimRight(strings.Replace(page, tableMarker, table, 1), "\n") + "\n", nil
}

// tables is the one place the generator asks for the effects tables, so that a change to how
// they are listed touches this line only.
func tables() []*effects.Table { return registry.Kinds().Tables() }

// emptySpecs are an empty spec of every kind, by kind name: a row's condition reads other fields
// of the spec it is tried on.
func emptySpecs() (map[string]protoreflect.Message, error) {
	out := map[string]protoreflect.Message{}
	for _, input := range registry.Kinds().StackInputs() {
		manifest := kinds.Manifest(input)
		spec := manifest.Fields().ByName("spec")
		if spec == nil || spec.Message() == nil {
			return nil, errors.Errorf("the manifest %s has no spec message", manifest.FullName())
		}
		out[string(manifest.Name())] = dynamicpb.NewMessage(spec.Message())
	}
	return out, nil
}

// pitfallsTable is the markdown table of every row whose change, in any case the row knows
// (always, when removed, or under its condition), replaces a resource or is refused. The effect
// column says the worst of them: a replacement over a refusal.
func pitfallsTable(tables []*effects.Table, specs map[string]protoreflect.Message) (string, error) {
	var b strings.Builder
	b.WriteString("| kind | field | effect | what happens |\n|---|---|---|---|\n")
	for _, table := range tables {
		spec, ok := specs[table.Name]
		if !ok {
			return "", errors.Errorf("no manifest kind %s for its effects table", table.Name)
		}
		for _, row := range table.Rows {
			worst, reasons := blocking(row, spec)
			if worst == "" {
				continue
			}
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", table.Name, row.Path, worst, cell(strings.Join(reasons, "<br>")))
		}
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// blocking returns the worst blocking effect of a row's decisions and each one's reason, or ""
// when no change of the field blocks.
func blocking(row effects.Row, spec protoreflect.Message) (effects.Effect, []string) {
	type labelled struct {
		effects.Decision
		when string
	}
	decisions := []labelled{{Decision: effects.Decision{Effect: row.Effect, Reason: row.Reason}}}
	if row.Removed != nil {
		decisions = append(decisions, labelled{*row.Removed, "Removing it"})
	}
	for _, d := range conditional(row, spec) {
		decisions = append(decisions, labelled{d, "Depending on the change"})
	}
	var worst effects.Effect
	var reasons []string
	seen := map[string]bool{}
	for _, d := range decisions {
		if !d.Effect.Blocks() {
			continue
		}
		if worst != effects.Replace {
			worst = d.Effect
		}
		reason := d.Reason
		if d.when != "" {
			reason = d.when + " (" + string(d.Effect) + "): " + reason
		}
		if !seen[reason] {
			seen[reason] = true
			reasons = append(reasons, reason)
		}
	}
	return worst, reasons
}

// conditional tries a row's condition on the changes that tell its cases apart: a version
// lowered, a flag turned off, a flag turned on.
func conditional(row effects.Row, spec protoreflect.Message) []effects.Decision {
	if row.When == nil {
		return nil
	}
	tries := []effects.Change{
		{Old: protoreflect.ValueOfString("1.31.1-do.5"), New: protoreflect.ValueOfString("1.30.1-do.0")},
		{Old: protoreflect.ValueOfBool(true), New: protoreflect.ValueOfBool(false)},
		{Old: protoreflect.ValueOfBool(false), New: protoreflect.ValueOfBool(true)},
	}
	var out []effects.Decision
	for _, c := range tries {
		c.OldSpec, c.NewSpec = spec, spec
		func() {
			// A condition reads only the kind of value it expects; another kind panics, and
			// that try tells nothing.
			defer func() { _ = recover() }()
			if d, ok := row.When(c); ok {
				out = append(out, d)
			}
		}()
	}
	return out
}

// cell makes text safe inside a markdown table cell.
func cell(text string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(text)
}
