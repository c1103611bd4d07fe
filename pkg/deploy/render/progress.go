package render

import (
	"bytes"
	"io"
	"reflect"
	"strings"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
	"github.com/clusterplane/clusterplane/pkg/redact"
)

// Report is the report of a command's outcomes, as every format shows it: priced for preview and
// up, status's stacks with their nodes and costs (statusFigures), each failure's cause said in
// the user's terms with what to run to mend it (Cause).
func Report(command operation.Name, outcomes []outcome.Outcome, prices func(cloud string) cost.Prices) runreport.Report {
	report := runreport.NewReport(command, outcomes)
	if command == operation.Preview || command == operation.Up {
		report.Price(outcomes, prices)
		priceUnchanged(report, outcomes, prices)
	}
	if command == operation.Preview {
		priceNotPreviewed(report, outcomes, prices)
	}
	if command == operation.Status {
		statusFigures(report, outcomes, prices)
	}
	for i, o := range outcomes {
		if o.Err != nil {
			report.Stacks[i].Error = Cause(o.Err, o.Target)
		}
	}
	return report
}

// statusFigures adds to each stack's status its nodes and monthly cost as the stack recorded
// them, and the manifest's, as status's table shows them. A copy of the status is changed: the
// outcome's stays as the operation left it.
func statusFigures(report runreport.Report, outcomes []outcome.Outcome, prices func(cloud string) cost.Prices) {
	if len(outcomes) != len(report.Stacks) {
		return
	}
	for i, row := range StatusRows(outcomes, prices) {
		if report.Stacks[i].Status == nil {
			continue
		}
		st := *report.Stacks[i].Status
		st.ManifestNodes, st.ManifestCost = row.ManifestNodes, row.ManifestCost
		if st.Recorded != nil {
			st.Nodes, st.Cost = row.Nodes, row.Cost
			st.RecordedNodes, st.RecordedCost = row.RecordedNodes, row.RecordedCost
			// The manifest's figures only where they differ from the recorded ones, as the table
			// shows one figure then: a fleet's report does not say each twice.
			if st.ManifestNodes == st.Nodes {
				st.ManifestNodes = ""
			}
			if reflect.DeepEqual(st.ManifestCost, st.Cost) {
				st.ManifestCost = nil
			}
		}
		report.Stacks[i].Status = &st
	}
}

// priceUnchanged prices each stack the fleet scan found unchanged, which the engine did not run:
// its manifest is the one its last up deployed, so it costs what it did, and the fleet's monthly
// total counts it (FleetSummary) instead of leaving most of a fleet out.
func priceUnchanged(report runreport.Report, outcomes []outcome.Outcome, prices func(cloud string) cost.Prices) {
	for i, o := range outcomes {
		if !o.NotRun || o.Verdict != outcome.Unchanged || o.Target.Input == nil || report.Stacks[i].Cost != nil {
			continue
		}
		if d, ok := cloudlist.OfInput(o.Target.Input); ok {
			d := cost.Compare(o.Target.Input, o.Target.Input, prices(string(d.ID())))
			report.Stacks[i].Cost = &d
		}
	}
}

// priceNotPreviewed prices each stack a preview did not run because a stack it reads is not
// deployed yet: a new cluster's pool, in the run that creates the cluster. The engine planned
// nothing for it, but what up creates is its manifest, so it costs what its manifest says (size
// and node count), from nothing, and the fleet's monthly total counts it.
func priceNotPreviewed(report runreport.Report, outcomes []outcome.Outcome, prices func(cloud string) cost.Prices) {
	for i, o := range outcomes {
		if i >= len(report.Stacks) || o.Result != nil || o.Status != outcome.Done || o.Verdict != outcome.NotPreviewed ||
			o.Target.Input == nil || report.Stacks[i].Cost != nil {
			continue
		}
		if d, ok := cloudlist.OfInput(o.Target.Input); ok {
			d := cost.Compare(nil, o.Target.Input, prices(string(d.ID())))
			report.Stacks[i].Cost = &d
		}
	}
}

// Streams is where each stack's engine progress goes, every line redacted (Redactor): to W as it
// comes for one stack, or for a fleet with Verbose, each line after its stack's name so that
// stacks run at once stay apart. A fleet's streams are otherwise not shown, never interleaved:
// the last lines of each are kept (Tail) for the row of a stack that fails. Quiet shows none.
type Streams struct {
	W        io.Writer
	Mu       *sync.Mutex // serialises the writes to W of stacks run at once
	Redactor *redact.Redactor
	Quiet    bool
	Verbose  bool

	mu      sync.Mutex
	flushes []func()
	tails   map[string]*Tail
}

// TailLines is how many of a stack's last progress lines are kept for its row.
const TailLines = 8

// For is deploy.Request's Progress: given how many stacks run, each stack's writer.
func (s *Streams) For(stacks int) func(t deploytarget.Target) io.Writer {
	return func(t deploytarget.Target) io.Writer {
		s.mu.Lock()
		defer s.mu.Unlock()
		var w io.Writer
		var p *Prefixed
		tail := &Tail{}
		switch {
		case s.Quiet && stacks == 1:
			return io.Discard
		case stacks == 1 && !s.Quiet:
			w = &LockedWriter{W: s.W, Mu: s.Mu}
		case s.Verbose && !s.Quiet:
			p = NewPrefixed(&LockedWriter{W: s.W, Mu: s.Mu}, t.Key()+": ")
			w = p
		default:
			if s.tails == nil {
				s.tails = map[string]*Tail{}
			}
			s.tails[t.Key()] = tail
			w = tail
		}
		redacting := redact.NewWriter(w, s.Redactor)
		s.flushes = append(s.flushes, func() {
			_ = redacting.Flush()
			if p != nil {
				_ = p.Flush()
			}
			tail.Flush()
		})
		return redacting
	}
}

// Flush writes what the writers hold of unfinished lines, once the stacks are done.
func (s *Streams) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, flush := range s.flushes {
		flush()
	}
	s.flushes = nil
}

// Tail is the last lines a stack's progress kept (FleetOptions.Tail): nil for a stack whose
// progress was shown as it ran, or not kept.
func (s *Streams) Tail(stack string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.tails[stack]; t != nil {
		return t.Lines()
	}
	return nil
}

// Tail keeps the last TailLines non-blank lines written to it.
type Tail struct {
	mu      sync.Mutex
	lines   []string
	partial strings.Builder
}

func (t *Tail) Write(data []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range string(data) {
		if r != '\n' {
			t.partial.WriteRune(r)
			continue
		}
		t.keep()
	}
	return len(data), nil
}

// Flush keeps an unfinished last line.
func (t *Tail) Flush() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.keep()
}

// keep ends the line being written: kept unless blank, the oldest dropped past TailLines.
func (t *Tail) keep() {
	line := strings.TrimRight(t.partial.String(), " \r\t")
	t.partial.Reset()
	if strings.TrimSpace(line) == "" {
		return
	}
	t.lines = append(t.lines, line)
	if len(t.lines) > TailLines {
		t.lines = t.lines[len(t.lines)-TailLines:]
	}
}

// Lines are the lines kept, oldest first.
func (t *Tail) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.lines...)
}

// NewPrefixed writes to w each line with prefix.
func NewPrefixed(w io.Writer, prefix string) *Prefixed {
	return &Prefixed{w: w, prefix: prefix, buf: &bytes.Buffer{}}
}

// Prefixed writes each line with a prefix: the progress of stacks run in parallel, told apart.
type Prefixed struct {
	w      io.Writer
	prefix string
	buf    *bytes.Buffer
}

func (p *Prefixed) Write(data []byte) (int, error) {
	p.buf.Write(data)
	for {
		line, err := p.buf.ReadString('\n')
		if err != nil {
			p.buf.WriteString(line) // an unfinished line waits for its end
			return len(data), nil
		}
		if _, err := io.WriteString(p.w, p.prefix+line); err != nil {
			return 0, err
		}
	}
}

// Flush writes an unfinished line, ended.
func (p *Prefixed) Flush() error {
	if p.buf.Len() == 0 {
		return nil
	}
	line := p.buf.String()
	p.buf.Reset()
	_, err := io.WriteString(p.w, p.prefix+line+"\n")
	return err
}

// LockedWriter serialises the writes of stacks run in parallel to one writer.
type LockedWriter struct {
	W  io.Writer
	Mu *sync.Mutex
}

func (l *LockedWriter) Write(data []byte) (int, error) {
	l.Mu.Lock()
	defer l.Mu.Unlock()
	return l.W.Write(data)
}
