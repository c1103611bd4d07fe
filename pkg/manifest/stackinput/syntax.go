package stackinput

import (
	"bytes"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxLocate and maxLocateLines bound the text whose syntax error is located line by line: each
// line costs a parse of the text up to it, and real manifests are far smaller.
const (
	maxLocate      = 64 << 10
	maxLocateLines = 2000
)

// syntaxProblem turns the YAML library's syntax error into a problem at a line and column. The
// library names a line only (and for some errors the line of the block around the mistake, not
// the mistake's), so the line is found again as the first one after which the text up to it fails
// with the same error, and the column from what is on that line. Nothing of the text is quoted.
func syntaxProblem(data []byte, source string, err error) *Problem {
	line, message := syntaxError(err)
	words := strings.TrimPrefix(message, "not valid YAML: ")
	if len(data) <= maxLocate && bytes.Count(data, []byte("\n")) <= maxLocateLines {
		if at := firstFailingLine(data, words); at > 0 {
			line = at
		}
	}
	lines := strings.Split(string(data), "\n")
	if line < 1 {
		line = 1
	}
	if line > len(lines) {
		line = len(lines)
	}
	// A quoted value left open runs on over the lines below it, to the next quote of its kind
	// (perhaps in a comment), and the error comes where that leaves the text broken: the open
	// quote is the mistake.
	if at, column := unclosedQuote(lines[:line]); at > 0 {
		return &Problem{File: source, Line: at, Column: column, RuleID: "yaml.syntax", Message: message,
			Hint: "a quoted value is not closed: end it with the same quote on its line"}
	}
	text := lines[line-1]
	p := &Problem{File: source, Line: line, Column: firstNonSpace(text), RuleID: "yaml.syntax", Message: message}
	switch {
	case tabIndented(text) >= 0:
		p.Column, p.Hint = tabIndented(text)+1, "tabs are not allowed for indentation; use spaces"
	case strings.Contains(words, "mapping values are not allowed"):
		p.Hint = "check this line's indentation against the keys of its block; a value holding \": \" must be quoted"
	case strings.Contains(err.Error(), "did not find expected key") || strings.Contains(err.Error(), "did not find expected '-'"):
		p.Hint = "check this line's indentation against the keys of its block"
	case strings.Contains(err.Error(), "did not find expected ','"):
		p.Hint = "a [list] or {mapping} written on one line is not closed"
	}
	return p
}

// firstFailingLine is the first line after which the text up to it fails to parse with words, 0
// when none does (a mistake only the whole text makes).
func firstFailingLine(data []byte, words string) int {
	end := 0
	for line := 1; end < len(data); line++ {
		next := bytes.IndexByte(data[end:], '\n')
		if next < 0 {
			end = len(data)
		} else {
			end += next + 1
		}
		if err := parseAll(data[:end]); err != nil {
			if _, got := syntaxError(err); strings.TrimPrefix(got, "not valid YAML: ") == words {
				return line
			}
		}
	}
	return 0
}

// parseAll parses every document of data, for its syntax error.
func parseAll(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// unclosedQuote is the line and column of the last value in lines that opens a quote and does not
// close it on its line, 0, 0 when there is none.
func unclosedQuote(lines []string) (int, int) {
	for i := len(lines) - 1; i >= 0; i-- {
		text := strings.TrimRight(lines[i], "\r")
		start := valueStart(text)
		if start < 0 || start >= len(text) || (text[start] != '"' && text[start] != '\'') {
			continue
		}
		if !closes(text[start+1:], text[start]) {
			return i + 1, start + 1
		}
	}
	return 0, 0
}

// valueStart is the index where the value of a `key: value` or `- value` line starts, -1 when
// the line has none.
func valueStart(text string) int {
	i := len(text) - len(strings.TrimLeft(text, " "))
	for strings.HasPrefix(text[i:], "- ") {
		i += 2
		i += len(text[i:]) - len(strings.TrimLeft(text[i:], " "))
	}
	if i < len(text) && (text[i] == '"' || text[i] == '\'') {
		return i
	}
	if k := strings.Index(text[i:], ": "); k >= 0 && !strings.ContainsAny(text[i:i+k], `"'#`) {
		j := i + k + 2
		return j + len(text[j:]) - len(strings.TrimLeft(text[j:], " "))
	}
	return -1
}

// closes tells whether rest (what follows an opening quote) holds its closing quote: `\"`
// escapes one in double quotes, `”` stands for one in single quotes.
func closes(rest string, quote byte) bool {
	for i := 0; i < len(rest); i++ {
		switch {
		case quote == '"' && rest[i] == '\\':
			i++
		case rest[i] == quote && quote == '\'' && i+1 < len(rest) && rest[i+1] == '\'':
			i++
		case rest[i] == quote:
			return true
		}
	}
	return false
}

// tabIndented is the index of a tab in the indentation of line, -1 when there is none. A tab
// after the indentation separates tokens and is allowed.
func tabIndented(line string) int {
	for i, c := range line {
		switch c {
		case '\t':
			return i
		case ' ', '-':
			continue
		}
		return -1
	}
	return -1
}

func firstNonSpace(line string) int {
	for i, c := range line {
		if c != ' ' && c != '\t' {
			return i + 1
		}
	}
	return 1
}
