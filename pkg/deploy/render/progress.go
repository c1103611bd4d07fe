package render

import (
	"bytes"
	"io"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/deploy"
)

// Report is the report of a command's outcomes, as every format shows it: priced for preview and
// up, each failure's cause said in the user's terms with what to run to mend it (Cause).
func Report(command string, outcomes []deploy.Outcome, prices func(cloud string) cost.Prices) deploy.Report {
	report := deploy.NewReport(command, outcomes)
	if command == "preview" || command == "up" {
		report.Price(outcomes, prices)
	}
	for i, o := range outcomes {
		if o.Err != nil {
			report.Stacks[i].Error = Cause(o.Err, o.Target)
		}
	}
	return report
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
