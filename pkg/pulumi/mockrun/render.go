package mockrun

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// Masked returns the output as it may be shown: nil when unknown, "[secret]" when secret.
func (o Output) Masked() any {
	switch {
	case o.Secret:
		return "[secret]"
	case !o.Known:
		return nil
	default:
		return o.Value
	}
}

// WriteJSON writes the plan as {"resources": [...], "outputs": {"name": {"secret", "value"}}},
// and "cost" (pkg/change/cost's estimate) when the plan was priced.
func WriteJSON(w io.Writer, p *Result) error {
	outputs := map[string]map[string]any{}
	for name, o := range p.Outputs {
		outputs[name] = map[string]any{"secret": o.Secret, "value": o.Masked()}
	}
	// docs/manifests.md documents every list as a list: a nil slice would marshal as null, which a
	// consumer iterating the field would have to special-case.
	resources := make([]Resource, len(p.Resources))
	for i, r := range p.Resources {
		r.DependsOn = orEmpty(r.DependsOn)
		r.IgnoreChanges = orEmpty(r.IgnoreChanges)
		r.AdditionalSecretOutputs = orEmpty(r.AdditionalSecretOutputs)
		if r.Inputs == nil {
			r.Inputs = map[string]any{}
		}
		resources[i] = r
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	out := map[string]any{"resources": resources, "outputs": outputs}
	if p.Cost != nil {
		out["cost"] = p.Cost
	}
	return enc.Encode(out)
}

// WriteText writes the plan as two readable tables, resources (each with its inputs) and outputs.
func WriteText(w io.Writer, p *Result) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "RESOURCES (%d)\n", len(p.Resources))
	fmt.Fprintln(tw, "  TYPE\tNAME\tPROVIDER\tPARENT\tOPTIONS")
	for _, r := range p.Resources {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", r.Type, r.Name, dash(r.Provider), dash(r.Parent), options(r))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range p.Resources {
		inputs, err := json.MarshalIndent(r.Inputs, "    ", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\n  %s %s inputs:\n    %s\n", r.Type, r.Name, inputs)
	}
	if refs := p.OfType(StackReferenceType); len(refs) > 0 {
		fmt.Fprintf(tw, "\nREFERENCES (%d, read from other stacks at deployment)\n", len(refs))
		fmt.Fprintln(tw, "  NAME\tSTACK\tSTATUS")
		for _, r := range refs {
			status := "resolved"
			if !p.resolved[r.Name] {
				status = "unresolved until deployment"
			}
			fmt.Fprintf(tw, "  %s\t%v\t%s\n", r.Name, r.Inputs["name"], status)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(p.Outputs))
	for name := range p.Outputs {
		names = append(names, name)
	}
	sort.Strings(names)
	fmt.Fprintf(tw, "\nOUTPUTS (%d)\n", len(names))
	fmt.Fprintln(tw, "  NAME\tSECRET\tVALUE")
	for _, name := range names {
		o := p.Outputs[name]
		value := "(known after deployment)"
		if v := o.Masked(); v != nil {
			b, _ := json.Marshal(v)
			value = string(b)
		}
		fmt.Fprintf(tw, "  %s\t%t\t%s\n", name, o.Secret, value)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if p.Cost != nil {
		fmt.Fprintf(w, "\nMONTHLY COST\n  %s (%s)\n", p.Cost, p.Cost.Citation())
	}
	return nil
}

func options(r Resource) string {
	var opts []string
	if len(r.DependsOn) > 0 {
		opts = append(opts, "dependsOn="+strings.Join(r.DependsOn, ","))
	}
	if len(r.IgnoreChanges) > 0 {
		opts = append(opts, "ignoreChanges="+strings.Join(r.IgnoreChanges, ","))
	}
	if len(r.AdditionalSecretOutputs) > 0 {
		opts = append(opts, "secretOutputs="+strings.Join(r.AdditionalSecretOutputs, ","))
	}
	if len(r.Aliases) > 0 {
		opts = append(opts, "aliases="+strings.Join(r.Aliases, ","))
	}
	if r.Protect {
		opts = append(opts, "protect")
	}
	return dash(strings.Join(opts, " "))
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
