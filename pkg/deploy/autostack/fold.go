package autostack

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/pulumi/stackrecord"
)

// manifestOpening is the line where the engine starts to print the recorded manifest among a
// stack's outputs: `    clusterplane_manifest  : (json) {`, the JSON then spread over a line a
// field. Every stack records its manifest (stackrecord.ManifestOutput), so a run over ten
// examples printed it ten times, most of what it printed; the user wrote that manifest and
// `clusterplane status` shows the stack.
// A preview marks a changed output ("  ~ clusterplane_manifest  : (json) {"), and its closing
// brace then stands under the name, past the marker.
var manifestOpening = regexp.MustCompile(`^(\s*)([-+~] )?` + regexp.QuoteMeta(stackrecord.ManifestOutput) + `(\s*): \(json\) \{\s*$`)

// maxFolded bounds the lines a fold holds: a manifest is far shorter, and past it the lines are
// written as they came.
const maxFolded = 2000

// folding writes the engine's progress to w with the recorded manifest's output folded to one
// line. It takes whole lines (the redacting writer before it writes only those). Lines it cannot
// tell the end of the block in (less indented than the opening, or too many) are written as
// they came, so nothing the engine says is lost.
type folding struct {
	w    io.Writer
	mu   sync.Mutex
	open []byte   // the opening line, while folding
	held [][]byte // the lines after it, while folding
	end  string   // the line that closes the block: the opening's indentation and "}"
	// folded is set after a fold: the engine follows a spread-out value with an empty line,
	// which a folded one does not need.
	folded bool
}

func foldManifest(w io.Writer) *folding { return &folding{w: w} }

func (f *folding) Write(data []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		f.line(line, &out)
	}
	if _, err := f.w.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(data), nil
}

func (f *folding) line(line []byte, out *bytes.Buffer) {
	text := strings.TrimRight(string(line), "\r\n")
	if f.folded {
		f.folded = false
		if strings.TrimSpace(text) == "" {
			return
		}
	}
	if f.open == nil {
		if m := manifestOpening.FindStringSubmatch(text); m != nil {
			f.open, f.end = line, m[1]+strings.Repeat(" ", len(m[2]))+"}"
			return
		}
		out.Write(line)
		return
	}
	switch {
	case strings.TrimRight(text, " ") == f.end:
		opening := strings.TrimRight(string(f.open), " \r\n")
		out.WriteString(opening + "…} (the stack's manifest, folded)\n")
		f.reset()
		f.folded = true
	case len(text)-len(strings.TrimLeft(text, " \t")) <= len(f.end)-1 && strings.TrimSpace(text) != "" || len(f.held) >= maxFolded:
		f.release(out)
		f.line(line, out)
	default:
		f.held = append(f.held, line)
	}
}

// release writes what a fold held, as it came.
func (f *folding) release(out *bytes.Buffer) {
	out.Write(f.open)
	for _, l := range f.held {
		out.Write(l)
	}
	f.reset()
}

func (f *folding) reset() { f.open, f.held, f.end = nil, nil, "" }

// Flush writes what a fold still holds: the run ended inside the block.
func (f *folding) Flush() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.open == nil {
		return nil
	}
	var out bytes.Buffer
	f.release(&out)
	_, err := f.w.Write(out.Bytes())
	return err
}
