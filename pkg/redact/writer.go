package redact

import (
	"bytes"
	"io"
	"sync"
)

// maxLine bounds what a Writer holds of a line that does not end: past it, the text is redacted
// and written as it is. A URL or a token is far shorter, so only one split exactly there escapes.
const maxLine = 64 << 10

// Writer redacts what it writes to another writer, a line at a time: a URL, a password=VALUE or
// a token never spans lines, so each whole line can be redacted on its own. An unfinished line
// waits for its end or for Flush, which a caller must call once the writing is over.
type Writer struct {
	w   io.Writer
	r   *Redactor
	mu  sync.Mutex
	buf []byte
}

// NewWriter is a Writer of r's redactions to w.
func NewWriter(w io.Writer, r *Redactor) *Writer { return &Writer{w: w, r: r} }

// Write writes the finished lines of data, redacted; it reports all of data written unless w fails.
func (w *Writer) Write(data []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, data...)
	end := bytes.LastIndexByte(w.buf, '\n') + 1
	if end == 0 && len(w.buf) > maxLine {
		end = len(w.buf)
	}
	if end == 0 {
		return len(data), nil
	}
	err := w.emit(w.buf[:end])
	w.buf = append(w.buf[:0], w.buf[end:]...)
	if err != nil {
		return 0, err
	}
	return len(data), nil
}

// Flush writes the unfinished line, redacted.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) == 0 {
		return nil
	}
	err := w.emit(w.buf)
	w.buf = w.buf[:0]
	return err
}

func (w *Writer) emit(text []byte) error {
	_, err := io.WriteString(w.w, w.r.String(string(text)))
	return err
}
