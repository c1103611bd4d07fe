package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/program"
	"github.com/clusterplane/clusterplane/pkg/stackinput"
	"github.com/pkg/errors"
	"github.com/spf13/cobra"
)

func (a *app) validateCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "validate FILE|DIR|- ...",
		Short: "Check manifests and stack inputs of every kind against their rules",
		Long: `validate checks every manifest and stack input given, each as the kind it names, and lists
every broken rule of every file. Directories are walked for .yaml, .yml and .json files; other
YAML there (Pulumi.yaml, stack settings) is skipped and said so. - reads standard input.

It exits 0 when every file is valid, 1 when any is not.`,
		Example: `  clusterplane validate examples/
  clusterplane validate cluster.yaml pools/ -o json
  cat cluster.yaml | clusterplane validate -`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: manifestFiles,
	}
	output := outputFlag(cmd)
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		inputs, err := a.expand(args)
		if err != nil {
			return err
		}
		verdicts := make([]program.Verdict, len(inputs))
		for i, in := range inputs {
			verdicts[i] = a.verdict(in)
		}
		return a.report(verdicts, args, *output)
	}
	return cmd
}

// input is a file to validate; explicit when it was named rather than found in a directory.
type input struct {
	file     string
	explicit bool
	// err is why a directory could not be walked.
	err error
}

// expand turns the arguments into files: directories are walked (hidden ones skipped) for
// YAML and JSON files, in lexical order.
func (a *app) expand(args []string) ([]input, error) {
	var out []input
	stdin := false
	for _, arg := range args {
		if arg == stackinput.Stdin {
			if stdin {
				return nil, errors.New("standard input (-) given twice")
			}
			stdin = true
			out = append(out, input{file: arg, explicit: true})
			continue
		}
		info, err := os.Stat(arg)
		if err != nil || !info.IsDir() {
			out = append(out, input{file: arg, explicit: true})
			continue
		}
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				out = append(out, input{file: path, err: err})
				return nil
			}
			if d.IsDir() {
				if path != arg && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			switch strings.ToLower(filepath.Ext(path)) {
			case ".yaml", ".yml", ".json":
				out = append(out, input{file: path})
			}
			return nil
		})
		if err != nil {
			return nil, errors.Wrapf(err, "walk %s", arg)
		}
	}
	return out, nil
}

// skipReason is what validate says of a file it does not check.
const skipReason = "not a Clusterplane manifest or stack input"

// verdict reads one file and checks it as the kind it names (see load).
func (a *app) verdict(in input) program.Verdict {
	f, k, skipped, err := a.load(in)
	switch {
	case skipped:
		return program.Verdict{File: in.file, Skipped: skipReason}
	case err != nil:
		return program.Verdict{File: in.file, Err: err}
	}
	return k.Check(f.Name, f.Data)
}

// load reads one file (once: it may be a pipe) and finds the kind it names: what validate and
// the deploy commands take a file to be. A file found in a directory that does not claim to be a
// Clusterplane manifest or stack input is skipped; a file named explicitly, or one that is not
// YAML at all, is an error.
func (a *app) load(in input) (f program.File, k *kind, skipped bool, err error) {
	if in.err != nil {
		return f, nil, false, in.err
	}
	data, err := stackinput.ReadFrom(in.file, a.stdin)
	if err != nil {
		return f, nil, false, err
	}
	head, err := stackinput.ReadHead(data)
	switch {
	case errors.Is(err, stackinput.ErrNotAMapping) && !in.explicit:
		return f, nil, true, nil
	case err != nil:
		return f, nil, false, errors.Wrap(err, in.file)
	}
	k, err = a.kindNamed(in.file, head)
	switch {
	case err != nil && !in.explicit && !head.Claimed():
		return f, nil, true, nil
	case err != nil:
		return f, nil, false, err
	}
	return program.File{Name: in.file, Data: data}, k, false, nil
}

// report writes the verdicts and sets the exit code: 1 when any file is invalid or when no file
// was checked at all.
func (a *app) report(verdicts []program.Verdict, args []string, output format) error {
	counts := map[string]int{}
	for _, v := range verdicts {
		counts[v.Status()]++
	}
	if counts["invalid"] > 0 || counts["valid"] == 0 {
		a.code = program.ExitInvalid
	}
	if output == "json" {
		if verdicts == nil {
			verdicts = []program.Verdict{}
		}
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return errors.Wrap(enc.Encode(verdicts), "write verdicts")
	}
	for _, v := range verdicts {
		switch v.Status() {
		case "valid":
			fmt.Fprintf(a.stdout, "%s: valid %s\n", v.File, v.Kind)
		case "skipped":
			fmt.Fprintf(a.stdout, "%s: skipped, %s\n", v.File, v.Skipped)
		default:
			fmt.Fprintln(a.stderr, v.Err)
		}
	}
	switch {
	case counts["valid"]+counts["invalid"] == 0:
		fmt.Fprintf(a.stderr, "no manifest or stack input in %s\n", strings.Join(args, " "))
	case len(verdicts) > 1:
		fmt.Fprintf(a.stdout, "%d valid, %d invalid, %d skipped\n", counts["valid"], counts["invalid"], counts["skipped"])
	}
	return nil
}
