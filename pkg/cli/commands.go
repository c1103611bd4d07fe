package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/manifest/files"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/pulumi/program"
	"github.com/pkg/errors"
	"github.com/spf13/cobra"
)

// ValidateCommand checks manifests and stack inputs, each as the kind it names.
func (a *App) ValidateCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "validate FILE|DIR|- ...",
		Short: "Check manifests and stack inputs against their rules",
		Long: `validate checks every manifest and stack input given, each as the kind it names, and lists
every broken rule of every file. Directories are walked for .yaml, .yml and .json files; other
YAML there (Pulumi.yaml, stack settings) is skipped and said so, and so are hidden folders,
node_modules, vendor, .terraform and what a .gitignore at the folder's top ignores (names, globs
and trailing slashes; not ! or **). A file may hold several manifests separated by ---: each is
checked. An empty file is invalid. - reads standard input. A pool whose cluster's manifest is
among those given (its valueFrom names it) must be in that cluster's region (rule id
region.same_as_cluster): a cloud whose API is per region would answer 404 at create. One whose
cluster's manifest is not given is valid with a note: preview and up check it against the region
the cluster's stack recorded.

A node size or Kubernetes version the cloud's catalogue does not list is a warning, with the
nearest spelling it does list (rule ids catalogue.size and catalogue.version in -o json), and
leaves the exit code as it is: the catalogue validate reads (clusterplane's own, or the cloud's
sizes API where its token is set and its driver reads one) may be older than the cloud. preview and
up, given a token, ask the cloud what it offers now and refuse what it does not.

With --policy (or $CLUSTERPLANE_POLICY), every valid manifest is also checked against the
organisation's rules (docs/policy.md): a rule at level deny makes it invalid, one at level warn
is a warning.

It exits 0 when every file is valid, 1 when any is not.`,
		Example: a.examples(`validate examples/
validate cluster.yaml pools/ -o json
cat cluster.yaml | NAME validate -`),
		Args:              cobra.MatchAll(cobra.MinimumNArgs(1), stdinOnce),
		ValidArgsFunction: ManifestFiles,
	}
	output := OutputFlag(cmd)
	policyFile := PolicyFlag(cmd)
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		pol, err := LoadPolicy(*policyFile)
		if err != nil {
			fmt.Fprintln(a.Stderr, err)
			return Exit(exitcode.Invalid)
		}
		inputs, err := files.Expand(args)
		if err != nil {
			fmt.Fprintln(a.Stderr, err)
			return Exit(exitcode.Invalid)
		}
		var verdicts []program.Verdict
		var manifests []Manifest
		for _, in := range inputs {
			v, m := a.verdicts(in, pol)
			verdicts, manifests = append(verdicts, v...), append(manifests, m...)
		}
		sameRegions(verdicts, manifests)
		return a.report(verdicts, args, output.String())
	}
	return cmd
}

// verdicts reads one file and checks each of its manifests as the kind it names (see LoadAll),
// and against pol when there is one. The manifests are returned beside their verdicts (none
// beside a file that was skipped or could not be read), for the checks across files.
func (a *App) verdicts(in files.Input, pol *policy.Policy) ([]program.Verdict, []Manifest) {
	manifests, skipped, err := a.LoadAll(in)
	none := make([]Manifest, 1)
	switch {
	case skipped && in.NotRegular():
		return []program.Verdict{{File: in.File, Skipped: files.NotRegularReason}}, none
	case skipped:
		return []program.Verdict{{File: in.File, Skipped: files.SkipReason}}, none
	case err != nil:
		return []program.Verdict{{File: in.File, Err: err}}, none
	}
	out := make([]program.Verdict, len(manifests))
	for i, m := range manifests {
		out[i] = withPolicy(m.Program.Check(m.File.Name, m.File.Data), pol, m.Program, m.File)
	}
	return out, manifests
}

// report writes the verdicts: exit 1 when any file is invalid or when no file was checked at all.
func (a *App) report(verdicts []program.Verdict, args []string, output string) error {
	counts := map[string]int{}
	for _, v := range verdicts {
		counts[v.Status()]++
	}
	code := exitcode.OK
	if counts["invalid"] > 0 || counts["valid"] == 0 {
		code = exitcode.Invalid
	}
	if output == "json" {
		if verdicts == nil {
			verdicts = []program.Verdict{}
		}
		enc := json.NewEncoder(a.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(verdicts); err != nil {
			return errors.Wrap(err, "write verdicts")
		}
		return Exit(code)
	}
	for _, v := range verdicts {
		switch v.Status() {
		case "valid":
			if v.Note != "" {
				fmt.Fprintf(a.Stdout, "%s: valid %s (%s)\n", v.File, v.Kind, v.Note)
			} else {
				fmt.Fprintf(a.Stdout, "%s: valid %s\n", v.File, v.Kind)
			}
			for _, w := range v.Warnings {
				fmt.Fprintln(a.Stderr, w)
			}
		case "skipped":
			fmt.Fprintf(a.Stdout, "%s: skipped, %s\n", v.File, v.Skipped)
		default:
			fmt.Fprintln(a.Stderr, v.Err)
			// A policy's warnings of a denied manifest are said too, as preview says them.
			for _, w := range v.Warnings {
				fmt.Fprintln(a.Stderr, w)
			}
		}
	}
	switch {
	case counts["valid"]+counts["invalid"] == 0:
		fmt.Fprintf(a.Stderr, "no manifest or stack input in %s\n", strings.Join(args, " "))
	case len(verdicts) > 1:
		fmt.Fprintf(a.Stdout, "%d valid, %d invalid, %d skipped\n", counts["valid"], counts["invalid"], counts["skipped"])
	}
	return Exit(code)
}

// PlanCommand runs a file's program's plan.
func (a *App) PlanCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plan FILE|-",
		Short: "Show what a manifest or stack input would deploy, offline",
		Long: `plan runs the program of the file's kind under Pulumi's mocks, as a preview, and prints every
resource it would register (with its inputs and options) and every output it would export.
Secrets read "[secret]", values known only after deployment "[unknown]". FILE may be a pipe;
- reads standard input. A file of several manifests (separated by ---) is planned one after the
other.

It exits 0, or 1 when the file is invalid.`,
		Example: a.examples(`plan cluster.yaml -o json
plan <(git show HEAD:cluster.yaml)`),
		Args:              FileArgs(1),
		ValidArgsFunction: ManifestFiles,
	}
	output := OutputFlag(cmd)
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		manifests, _, err := a.LoadAll(files.Input{File: args[0], Explicit: true})
		if err != nil {
			fmt.Fprintln(a.Stderr, err)
			return Exit(exitcode.Invalid)
		}
		// A file of several manifests is planned one manifest after the other; the run exits
		// with the first failure's code.
		code := exitcode.OK
		for _, m := range manifests {
			if c := m.Program.Plan(m.File, output.String(), a.Stdout, a.Stderr); code == exitcode.OK {
				code = c
			}
		}
		return Exit(code)
	}
	return cmd
}

// DiffCommand hands both files to their kind's program's diff.
func (a *App) DiffCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Show what changing a manifest from OLD to NEW does to the cloud resources, offline",
		Long: `diff plans OLD and NEW, two files of the same kind, with that kind's program and shows what
the change does: which resources are updated in place, which are replaced and which are refused.
Either file may be a pipe, or - for standard input. Files of several manifests (a cluster and its
pool, separated by ---) are compared stack by stack, each manifest with the one of the same kind
and stack (metadata.name and env) in the other file; a manifest in NEW only is planned as added,
one in OLD only is said removed. With --policy (or $CLUSTERPLANE_POLICY), NEW is checked against
the organisation's rules (docs/policy.md), with OLD as the manifest it replaces: a denied change
is refused (exit 1) before the diff runs, a warning is said.

` + exitcode.Diff,
		Example: a.examples(`diff live.yaml proposed.yaml --allow-replace
diff <(git show HEAD:cluster.yaml) cluster.yaml`),
		Args:              FileArgs(2),
		ValidArgsFunction: ManifestFiles,
	}
	output := OutputFlag(cmd)
	allowReplace := cmd.Flags().Bool("allow-replace", false, "exit 0, not 3, when the change replaces a resource; a refused change still exits 3")
	policyFile := PolicyFlag(cmd)
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		pol, err := LoadPolicy(*policyFile)
		if err != nil {
			fmt.Fprintln(a.Stderr, err)
			return Exit(exitcode.Invalid)
		}
		olds, _, err := a.LoadAll(files.Input{File: args[0], Explicit: true})
		if err != nil {
			fmt.Fprintln(a.Stderr, err)
			return Exit(exitcode.Invalid)
		}
		// The same path twice is read once: a second read of a pipe would find it empty.
		news := olds
		if args[1] != args[0] {
			if news, _, err = a.LoadAll(files.Input{File: args[1], Explicit: true}); err != nil {
				fmt.Fprintln(a.Stderr, err)
				return Exit(exitcode.Invalid)
			}
		}
		if len(olds) != 1 || len(news) != 1 {
			return Exit(a.diffMany(olds, news, pol, output.String(), *allowReplace))
		}
		oldFile, oldProgram, newFile, newProgram := olds[0].File, olds[0].Program, news[0].File, news[0].Program
		if oldProgram.Kind() != newProgram.Kind() {
			return errors.Errorf("%s is a %s and %s a %s: diff compares two manifests of one kind",
				args[0], oldProgram.Kind(), args[1], newProgram.Kind())
		}
		results, err := CheckPolicy(pol, newProgram, newFile, &oldFile)
		if err != nil {
			fmt.Fprintln(a.Stderr, err)
			return Exit(exitcode.Invalid)
		}
		return Exit(a.diffWithPolicy(results, output.String(), func(stdout io.Writer) int {
			return oldProgram.Diff(oldFile, newFile, output.String(), *allowReplace, stdout, a.Stderr)
		}))
	}
	return cmd
}

// FileArgs accepts exactly n file arguments, standard input (-) at most once.
func FileArgs(n int) cobra.PositionalArgs {
	return cobra.MatchAll(cobra.ExactArgs(n), stdinOnce)
}

// stdinOnce refuses standard input (-) given twice: it can be read only once.
func stdinOnce(_ *cobra.Command, args []string) error {
	if i := slices.Index(args, stackinput.Stdin); i >= 0 && slices.Contains(args[i+1:], stackinput.Stdin) {
		return errors.New("standard input (-) given twice")
	}
	return nil
}
