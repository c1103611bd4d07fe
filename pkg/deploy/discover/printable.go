package discover

import (
	"fmt"
	"strings"
	"unicode"
)

// Printable is s with every character that could act on a terminal or break a YAML comment
// written as an escape: the control characters (C0, DEL, C1: escape sequences, carriage returns,
// new lines that would forge a line), and the format characters that reorder or hide text (the
// bidirectional overrides and isolates, zero-width ones) and the line and paragraph separators.
// Cloud names are the cloud's users' text, and reach both the files discover writes and the
// terminal.
func Printable(s string) string {
	if strings.IndexFunc(s, hostile) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !hostile(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

func hostile(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' || r == unicode.ReplacementChar
}
