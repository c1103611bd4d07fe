// Package exitcode is the exit codes of clusterplane and of the program binaries, in one table
// from which their help texts are made, so that a script reads the same code the same way
// whatever command it ran.
package exitcode

import (
	"fmt"
	"strings"
)

// The exit codes. A crash is never 1 or 2: Go's runtime exits 2 on a panic, so the commands
// recover and answer Crash.
const (
	OK      = 0
	Invalid = 1 // invalid input, a failed plan or a deployment that failed or was skipped
	Usage   = 2
	// Blocked is a change or state that must not pass unasked, e.g. diff finding a replacement.
	Blocked = 3
	// NotReady is status finding a stack whose last update failed, whose pool rotation stopped
	// midway, or that is not at its manifest's generation (never deployed, or the manifest
	// changed since), or, with --drift, whose cloud differs: a script gates on it.
	NotReady = 4
	// Crash is a bug of the program, never of the input.
	Crash = 70
	// Interrupted is a command stopped with Ctrl-C, as shells give it (128 + SIGINT).
	Interrupted = 130
	// Signaled is what a command run by clusterplane (sandbox -- CMD, kubeconfig FILE -- CMD)
	// that a signal ended exits with, plus the signal, as shells give it: 143 for SIGTERM.
	Signaled = 128
)

// Code is one exit code and what it means, as the help says it.
type Code struct {
	Code  int
	Means string
}

// Table is every exit code, in the order the help lists them.
var Table = []Code{
	{OK, "ok"},
	{Invalid, "invalid input, or a deployment that failed or was skipped"},
	{Usage, "usage error"},
	{Blocked, "something that must not pass unasked: diff or preview found a replacement or a refused change, " +
		"up refused a change or was not confirmed, drift found drift, adopt found the manifest disagreeing, " +
		"destroy was refused for a protected cluster"},
	{NotReady, "status found a stack whose last update failed, whose pool rotation stopped midway, that is not at " +
		"its manifest's generation, or (--drift) whose cloud differs"},
	{Interrupted, "interrupted (Ctrl-C)"},
	{Crash, "an internal error (a bug, never your input)"},
}

// Diff is diff's exit codes in the one wording the help texts and the docs share: diff alone
// tells a replacement from another change.
const Diff = `diff exits 0 when nothing is replaced or refused, 3 when something is, 1 for invalid input, 2
for usage; --allow-replace turns 3 into 0 for intended replacements, a refused change still exits 3.`

// Help is the codes given (every code of Table when none is) as help texts say them:
// "Exit codes: 0 ok; 1 ...; 2 usage error.", wrapped at 100 columns.
func Help(codes ...int) string {
	var parts []string
	for _, c := range Table {
		if len(codes) == 0 || contains(codes, c.Code) {
			parts = append(parts, fmt.Sprintf("%d %s", c.Code, c.Means))
		}
	}
	return wrap("Exit codes: "+strings.Join(parts, "; ")+".", 100)
}

func contains(codes []int, code int) bool {
	for _, c := range codes {
		if c == code {
			return true
		}
	}
	return false
}

// wrap breaks text into lines of at most width columns, between words.
func wrap(text string, width int) string {
	var b strings.Builder
	line := 0
	for i, w := range strings.Fields(text) {
		if i > 0 && line+1+len(w) > width {
			b.WriteByte('\n')
			line = 0
		} else if i > 0 {
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += len(w)
	}
	return b.String()
}
