package stackinput

import (
	"bytes"
	"strings"
)

// MaxDocuments bounds the documents of one file: a cluster and its pools are a handful.
const MaxDocuments = 32

// Documents splits YAML text at its document markers (`---`, `...` at the start of a line) into
// one text per document that holds something, as kubectl users keep a cluster and its pool in
// one file. Each text is the whole file with every other document's lines blanked, so that a
// document parsed alone names the lines and columns of the file. Text with no marker is returned
// as it is, one document for its own errors; text of markers and comments only, as one empty
// document.
func Documents(data []byte) [][]byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	// doc[i] is the document line i belongs to; a `---` marker belongs to the document it opens,
	// without its three dashes, as it may carry the document's first value (`--- {a: 1}`).
	doc := make([]int, len(lines))
	n, markers := 0, false
	for i, line := range lines {
		doc[i] = n
		if marker(line) {
			markers = true
			n++
			doc[i] = -1
			if line[0] == '-' {
				doc[i] = n
				lines[i] = append(bytes.Repeat([]byte(" "), 3), line[3:]...)
			}
		}
	}
	if !markers || n >= MaxDocuments {
		// Too many documents are read as one, which the parser refuses at its second: each
		// document costs a copy of the file's lines, and a huge count would cost the memory.
		return [][]byte{data}
	}
	var out [][]byte
	for d := 0; d <= n; d++ {
		var b bytes.Buffer
		holds := false
		for i, line := range lines {
			if doc[i] == d {
				b.Write(line)
				holds = holds || !blank(line)
			} else {
				b.Write(newlineOf(line))
			}
		}
		if holds {
			out = append(out, b.Bytes())
		}
	}
	if out == nil {
		// Markers and comments only: one document with nothing in it, which reads as empty.
		var b bytes.Buffer
		for _, line := range lines {
			b.Write(newlineOf(line))
		}
		return [][]byte{b.Bytes()}
	}
	return out
}

// marker tells whether a line is a document marker: `---` or `...` at its start, then a space
// or its end. Inside a block scalar such a line is indented, so it is never a marker there.
func marker(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("---")) && !bytes.HasPrefix(line, []byte("...")) {
		return false
	}
	return len(line) == 3 || strings.ContainsRune(" \t\r\n", rune(line[3]))
}

// blank tells whether a line holds nothing for YAML: spaces or a comment.
func blank(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) == 0 || t[0] == '#'
}

func newlineOf(line []byte) []byte {
	if bytes.HasSuffix(line, []byte("\r\n")) {
		return []byte("\r\n")
	}
	if bytes.HasSuffix(line, []byte("\n")) {
		return []byte("\n")
	}
	return nil
}
