package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/exitcode"

	"github.com/clusterplane/clusterplane/pkg/describe/jsonschema"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/pkg/errors"
	"github.com/spf13/cobra"
)

type explainOptions struct {
	f *factory
	// path is KIND[.field.path]; recursive lists the fields of fields too.
	path      string
	recursive bool
	output    *cli.Format
}

func newCmdExplain(f *factory, runF func(*explainOptions) error) *cobra.Command {
	opts := &explainOptions{f: f}
	cmd := &cobra.Command{
		Use:   "explain KIND[.field.path]",
		Short: "Document a kind or one of its fields: type, rules, default, description",
		Long: `explain documents a kind or one of its fields, named as manifests write them: its type, its
rules in words, its default, what changing it does, and its description from the API's proto
comments. A stack input's fields start from KINDStackInput (e.g. ` + cli.ExampleKind(f.kinds.Names(), 0) + `StackInput).`,
		Example: "  clusterplane explain " + cli.ExampleKind(f.kinds.Names(), 0) + ".spec.defaultNodePool.size\n  clusterplane explain " +
			cli.ExampleKind(f.kinds.Names(), 1) + ".spec --recursive",
		Args: cobra.ExactArgs(1),
		ValidArgsFunction: func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return f.explainer.Complete(toComplete), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
		},
	}
	cmd.Flags().BoolVar(&opts.recursive, "recursive", false, "list the fields of fields too, by name and type")
	opts.output = cli.OutputFlag(cmd)
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		opts.path = args[0]
		return runOrReal(opts, runF, explainRun)
	}
	return cmd
}

func explainRun(opts *explainOptions) error {
	f := opts.f
	t, err := f.explainer.Find(opts.path)
	if err != nil {
		return err
	}
	if opts.output.String() == "json" {
		d, err := t.Doc(opts.recursive)
		if err != nil {
			return errors.Wrap(err, "explain")
		}
		return f.writeJSON(d)
	}
	return errors.Wrap(t.Write(f.Stdout, opts.recursive), "explain")
}

type schemaOptions struct {
	f *factory
	// kind is KIND, "" to list them; stackInput is --stack-input.
	kind       string
	stackInput bool
}

func newCmdSchema(f *factory, runF func(*schemaOptions) error) *cobra.Command {
	opts := &schemaOptions{f: f}
	cmd := &cobra.Command{
		Use:   "schema [KIND]",
		Short: "Print the JSON Schema of a kind's manifests or stack inputs",
		Long: `schema prints the JSON Schema (draft 2020-12) of KIND's manifests, or with --stack-input of its
stack inputs: the files committed under schemas/. Without KIND it lists them.`,
		Example: "  clusterplane schema " + cli.ExampleKind(f.kinds.Names(), 0) + " > " +
			strings.ToLower(cli.ExampleKind(f.kinds.Names(), 0)) + ".schema.json",
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: f.kinds.Names(),
	}
	cmd.Flags().BoolVar(&opts.stackInput, "stack-input", false, "the schema of the kind's stack inputs")
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		if len(args) > 0 {
			opts.kind = args[0]
		}
		return runOrReal(opts, runF, schemaRun)
	}
	return cmd
}

func schemaRun(opts *schemaOptions) error {
	f := opts.f
	if opts.kind == "" {
		tw := tabwriter.NewWriter(f.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "KIND\tMANIFEST SCHEMA\tSTACK INPUT SCHEMA")
		for _, k := range f.kinds {
			fmt.Fprintf(tw, "%s\tschemas/%s\tschemas/%s\n", k.Name, jsonschema.FileName(k.Name, false),
				jsonschema.FileName(k.Name, true))
		}
		return errors.Wrap(tw.Flush(), "write")
	}
	k, ok := f.kinds.ByName(opts.kind)
	if !ok {
		return errors.Errorf("unknown kind %s; one of: %s", stackinput.Quote(opts.kind), strings.Join(f.kinds.Names(), ", "))
	}
	md := kinds.Manifest(k.StackInput())
	if opts.stackInput {
		md = k.StackInput()
	}
	s, err := jsonschema.Of(md)
	if err == nil {
		var data []byte
		if data, err = jsonschema.Marshal(s); err == nil {
			_, err = f.Stdout.Write(data)
		}
	}
	if err != nil {
		fmt.Fprintln(f.Stderr, "schema:", err)
		return cli.Exit(exitcode.Invalid)
	}
	return nil
}

// kindRow is one row of `kinds`, as -o json prints it.
type kindRow struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Program    string `json:"program"`
	Schema     string `json:"schema"`
}

type kindsOptions struct {
	f      *factory
	output *cli.Format
}

func newCmdKinds(f *factory, runF func(*kindsOptions) error) *cobra.Command {
	opts := &kindsOptions{f: f}
	cmd := &cobra.Command{
		Use:   "kinds",
		Short: "List the kinds with their apiVersion, program and schema",
		Args:  cobra.NoArgs,
	}
	opts.output = cli.OutputFlag(cmd)
	cmd.RunE = func(*cobra.Command, []string) error { return runOrReal(opts, runF, kindsRun) }
	return cmd
}

func kindsRun(opts *kindsOptions) error {
	f := opts.f
	rows := make([]kindRow, 0, len(f.kinds))
	for _, k := range f.kinds {
		rows = append(rows, kindRow{Kind: k.Name, APIVersion: k.APIVersion(), Program: "iac/pulumi/" + k.Project,
			Schema: "schemas/" + jsonschema.FileName(k.Name, false)})
	}
	if opts.output.String() == "json" {
		return f.writeJSON(rows)
	}
	tw := tabwriter.NewWriter(f.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tAPIVERSION\tPROGRAM\tSCHEMA")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Kind, r.APIVersion, r.Program, r.Schema)
	}
	return errors.Wrap(tw.Flush(), "write")
}

// writeJSON prints v as indented JSON, as every -o json of the offline commands does.
func (f *factory) writeJSON(v any) error {
	enc := json.NewEncoder(f.Stdout)
	enc.SetIndent("", "  ")
	return errors.Wrap(enc.Encode(v), "write")
}

// regionRow is one row of `regions`, as -o json prints it.
type regionRow struct {
	Region string `json:"region"`
	Where  string `json:"where"`
}

type regionsOptions struct {
	f *factory
	// cloud is CLOUD, a cloud's ID (cli.Clouds).
	cloud  string
	output *cli.Format
}

func newCmdRegions(f *factory, runF func(*regionsOptions) error) *cobra.Command {
	opts := &regionsOptions{f: f}
	cmd := &cobra.Command{
		Use:   "regions CLOUD",
		Short: "List the regions of a cloud (" + cli.CloudsOr() + ") that clusterplane's catalogue knows",
		Long: `List the regions of a cloud (` + cli.CloudsOr() + `) as clusterplane's regions table recorded them.
A manifest may name a region the table lacks (one the cloud opened since): validate warns of it,
and with a token preview and up ask the cloud's own list, which decides.`,
		Example:   "  clusterplane regions " + cli.Clouds()[0],
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		ValidArgs: cli.Clouds(),
	}
	opts.output = cli.OutputFlag(cmd)
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		opts.cloud = args[0]
		return runOrReal(opts, runF, regionsRun)
	}
	return cmd
}

func regionsRun(opts *regionsOptions) error {
	var rows []regionRow
	regions, err := cli.Regions(opts.cloud)
	if err != nil {
		return err
	}
	for _, r := range regions {
		rows = append(rows, regionRow{Region: r.Name, Where: r.Where})
	}
	if opts.output.String() == "json" {
		return opts.f.writeJSON(rows)
	}
	tw := tabwriter.NewWriter(opts.f.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REGION\tWHERE")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\n", r.Region, r.Where)
	}
	return errors.Wrap(tw.Flush(), "write")
}
