package render

import (
	"fmt"
	"io"
	"sync"
)

// Live is a terminal's view of work under way: a line for each piece in flight (Set), kept
// below the lines said once (Say), and redrawn in place as it changes. Only for a terminal: it
// moves the cursor up over the lines it drew and clears them (ANSI CSI A and J).
type Live struct {
	mu    sync.Mutex
	w     io.Writer
	lines map[string]string
	order []string
	drawn int
}

// NewLive is a Live view written to w, a terminal.
func NewLive(w io.Writer) *Live { return &Live{w: w, lines: map[string]string{}} }

// Say prints line once, above the lines in flight.
func (l *Live) Say(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clear()
	fmt.Fprintln(l.w, line)
	l.draw()
}

// Set shows line as key's line in flight; "" removes it.
func (l *Live) Set(key, line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clear()
	if _, ok := l.lines[key]; !ok && line != "" {
		l.order = append(l.order, key)
	}
	if line == "" {
		delete(l.lines, key)
		for i, k := range l.order {
			if k == key {
				l.order = append(l.order[:i:i], l.order[i+1:]...)
				break
			}
		}
	} else {
		l.lines[key] = line
	}
	l.draw()
}

func (l *Live) clear() {
	if l.drawn > 0 {
		fmt.Fprintf(l.w, "\x1b[%dA\x1b[J", l.drawn)
	}
	l.drawn = 0
}

func (l *Live) draw() {
	for _, k := range l.order {
		fmt.Fprintln(l.w, "  "+l.lines[k])
		l.drawn++
	}
}
