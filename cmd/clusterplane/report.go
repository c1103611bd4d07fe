package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/pipeline"
	"github.com/clusterplane/clusterplane/pkg/deploy/render"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/redact"
	"github.com/pkg/errors"
)

// report prints the outcomes as the command's -o asks: the report as JSON (or YAML), a Markdown comment,
// or text (the command's own, else the table), every failure's cause on stderr.
// Everything it prints is redacted (see redactor), but for what a command prints as the user's
// data, verbatim: a kubeconfig.
func (f *factory) report(r runOp, o *deployOptions, outcomes []outcome.Outcome, took time.Duration) (failed error) {
	report := render.Report(r.step.Operation(), outcomes, f.prices)
	if err := f.writeReportFile(o, report, outcomes); err != nil {
		f.printError(err) // said, and the report still printed: the run's outcome is not lost with the file
		defer func() { failed = cli.Exit(exitcode.Invalid) }()
	}
	var out bytes.Buffer
	switch o.output.String() {
	case "json", "yaml":
		data, err := render.JSON(report, o.output.String() == "yaml", f.redactor().JSON) // status -o yaml, as kubectl's
		if err == nil {
			_, err = f.Stdout.Write(data)
		}
		return errors.Wrap(err, "write the report")
	case "markdown":
		if err := render.Markdown(&out, report); err != nil {
			return errors.Wrap(err, "write the report")
		}
		return f.writeRedacted(&out)
	}
	if r.render == nil {
		// One stack is shown whole; a fleet as a row a stack that did something, and the summary.
		one := len(outcomes) == 1
		render.Fleet(&out, report, render.FleetOptions{All: o.all || o.verbose || one, Detail: o.verbose || one,
			Tail: f.streams(o).Tail, Took: took})
		return f.writeRedacted(&out)
	}
	for _, out := range outcomes {
		if out.Err != nil {
			fmt.Fprintf(f.Stderr, "%s (%s): %s\n", out.Target.File, out.Target.Key(),
				f.redactor().String(render.Cause(out.Err, out.Target)))
		}
	}
	if r.verbatim {
		r.render(f.Stdout, outcomes)
		return nil
	}
	r.render(&out, outcomes)
	if r.summary {
		fmt.Fprintln(&out, render.FleetSummary(report, took))
	}
	return f.writeRedacted(&out)
}

// writeReportFile writes --report-file, when given, whole (atomically) and redacted.
func (f *factory) writeReportFile(o *deployOptions, report runreport.Report, outcomes []outcome.Outcome) error {
	if o.reportFile == "" {
		return nil
	}
	data, err := render.ReportFile(o.reportFile, report, outcomes, f.prices, f.redactor().String)
	if err != nil {
		return err
	}
	return runreport.WriteReportFile(o.reportFile, data)
}

// writeRedacted writes the command's output, redacted, to standard output.
func (f *factory) writeRedacted(out *bytes.Buffer) error {
	_, err := io.WriteString(f.Stdout, f.redactor().String(out.String()))
	return errors.Wrap(err, "write the report")
}

// redactor removes the run's secrets (the environment's tokens and passphrase, the backend URL's
// password) from what the deploy commands print: autostack redacts the engine's words already,
// and this is the last line, for every backend and every word the command adds. It is made once
// per run, before any stack runs.
func (f *factory) redactor() *redact.Redactor {
	f.deploy.redactOnce.Do(func() { f.deploy.redactor = redact.FromEnv() })
	return f.deploy.redactor
}

// printError prints an error of the deploy commands on standard error, redacted.
func (f *factory) printError(err error) {
	fmt.Fprintln(f.Stderr, f.redactor().String(err.Error()))
}

// streams is where the stacks' engine progress goes (render.Streams: shown as it comes for one
// stack or with -v, else kept for a failed stack's row), made once per run, before any stack runs.
func (f *factory) streams(o *deployOptions) *render.Streams {
	if f.deploy.streams == nil {
		f.deploy.streams = &render.Streams{W: f.Stderr, Mu: &f.outMu, Redactor: f.redactor(), Quiet: o.quiet, Verbose: o.verbose}
	}
	return f.deploy.streams
}

// prices are a cloud's prices for the run's reports, read once per cloud: the sizes API's when
// a token reads them, else the table, with a warning when the API failed.
func (f *factory) prices(id string) cost.Prices {
	p, warning := pipeline.Prices(context.Background(), id)
	// Said once a run, however many manifests the cloud's prices serve.
	if _, said := f.deploy.warned.LoadOrStore(warning, true); warning != "" && !said {
		fmt.Fprintln(f.Stderr, f.redactor().String(warning))
	}
	return p
}
