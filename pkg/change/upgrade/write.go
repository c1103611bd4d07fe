package upgrade

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/atomicwrite"
	"github.com/pkg/errors"
	yaml "go.yaml.in/yaml/v3"
)

// Write edits the manifest of kind and name in data (a file of one or more documents, a
// manifest or a stack input) so that its spec.kubernetesVersion is next and its GoalAnnotation
// is goal, or gone when next is the goal. Only those lines change: the file's comments, order,
// quoting and layout stay, because the edits are made in the text at the places the YAML parser
// found, not by writing the parsed document out again.
func Write(data []byte, kind, name, next, goal string) ([]byte, error) {
	doc, err := findDocument(data, kind, name)
	if err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(string(data), "\n")
	spec := lookup(doc, "spec")
	version := lookup(spec, "kubernetesVersion")
	if version == nil || version.Kind != yaml.ScalarNode {
		return nil, errors.Errorf("%s %s has no spec.kubernetesVersion to set", kind, name)
	}
	// Edits go from the bottom of the file up, so the places found stay right.
	type edit struct {
		line int // 0-based
		do   func([]string) ([]string, error)
	}
	var edits []edit
	edits = append(edits, edit{version.Line - 1, func(l []string) ([]string, error) { return replaceScalar(l, version, next) }})
	meta := lookup(doc, "metadata")
	if meta == nil || meta.Kind != yaml.MappingNode || len(meta.Content) == 0 {
		return nil, errors.Errorf("%s %s has no metadata mapping", kind, name)
	}
	annotations := lookup(meta, "annotations")
	var goalKey, goalValue *yaml.Node
	if annotations != nil && annotations.Kind == yaml.MappingNode {
		goalKey, goalValue = entry(annotations, GoalAnnotation)
	}
	switch {
	case next == goal && goalKey != nil:
		if goalValue.Line != goalKey.Line || goalValue.Kind != yaml.ScalarNode || annotations.Style&yaml.FlowStyle != 0 {
			return nil, errors.Errorf("remove the annotation %s of %s %s by hand: it is not on one line of its own", GoalAnnotation, kind, name)
		}
		remove := []int{goalKey.Line - 1}
		if len(annotations.Content) == 2 {
			annKey, _ := entry(meta, "annotations")
			remove = append(remove, annKey.Line-1) // the mapping is left empty: its key goes too
		}
		for _, n := range remove {
			edits = append(edits, edit{n, func(l []string) ([]string, error) { return append(l[:n:n], l[n+1:]...), nil }})
		}
	case next == goal:
	case goalValue != nil:
		edits = append(edits, edit{goalValue.Line - 1, func(l []string) ([]string, error) { return replaceScalar(l, goalValue, goal) }})
	case annotations != nil:
		if annotations.Kind != yaml.MappingNode || annotations.Style&yaml.FlowStyle != 0 || len(annotations.Content) == 0 {
			return nil, errors.Errorf("add the annotation %s: %q to %s %s by hand, or write its annotations as key: value "+
				"lines (an empty annotations: line can go): they are empty or not a block mapping", GoalAnnotation, goal, kind, name)
		}
		first := annotations.Content[0]
		at := first.Line - 1
		text := strings.Repeat(" ", first.Column-1) + GoalAnnotation + ": " + strconv.Quote(goal) + eol(lines, at)
		edits = append(edits, edit{at, func(l []string) ([]string, error) { return insert(l, at, text), nil }})
	default:
		first := meta.Content[0]
		at := first.Line - 1
		// After the last entry of the metadata written on one line (its name, mostly).
		for i := 0; i+1 < len(meta.Content); i += 2 {
			if k, v := meta.Content[i], meta.Content[i+1]; v.Kind == yaml.ScalarNode && v.Line == k.Line {
				at = k.Line
			}
		}
		indent := strings.Repeat(" ", first.Column-1)
		text := indent + "annotations:" + eol(lines, first.Line-1) +
			indent + "  " + GoalAnnotation + ": " + strconv.Quote(goal) + eol(lines, first.Line-1)
		edits = append(edits, edit{at, func(l []string) ([]string, error) { return insert(l, at, text), nil }})
	}
	// Bottom first; at one line, an insertion before a removal or replacement of it would shift it.
	for i := 1; i < len(edits); i++ {
		for j := i; j > 0 && edits[j].line > edits[j-1].line; j-- {
			edits[j], edits[j-1] = edits[j-1], edits[j]
		}
	}
	for _, e := range edits {
		if lines, err = e.do(lines); err != nil {
			return nil, err
		}
	}
	return []byte(strings.Join(lines, "")), nil
}

// eol is the line ending of lines[i]: "\r\n" in a file written with them, else "\n".
func eol(lines []string, i int) string {
	if i < len(lines) && strings.HasSuffix(lines[i], "\r\n") {
		return "\r\n"
	}
	return "\n"
}

func insert(lines []string, at int, text string) []string {
	if at > 0 && at <= len(lines) && !strings.HasSuffix(lines[at-1], "\n") {
		lines[at-1] += "\n" // the file's last line had no newline
	}
	out := append([]string{}, lines[:at]...)
	out = append(out, text)
	return append(out, lines[at:]...)
}

// replaceScalar replaces the scalar n, on one line, with value, in n's quoting: a plain scalar
// stays plain unless value would read as something else than a string ("1.32" is a number).
func replaceScalar(lines []string, n *yaml.Node, value string) ([]string, error) {
	i := n.Line - 1
	if i < 0 || i >= len(lines) {
		return nil, errors.New("the version's line is outside the file")
	}
	line := []rune(lines[i])
	start := n.Column - 1
	if start < 0 || start > len(line) {
		return nil, errors.New("the version's column is outside its line")
	}
	rest := string(line[start:])
	var end int
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0, n.Style&yaml.SingleQuotedStyle != 0:
		q := rest[:1]
		closing := strings.Index(rest[1:], q)
		if closing < 0 {
			return nil, errors.New("the version's quoted string goes past its line: edit it by hand")
		}
		end = closing + 2
	case n.Style == 0 || n.Style&yaml.TaggedStyle != 0:
		end = len(rest)
		if c := strings.Index(rest, " #"); c >= 0 {
			end = c
		}
		end = len(strings.TrimRight(rest[:end], " \t\r\n"))
		if rest[:end] != n.Value {
			return nil, errors.New("the version is written over several lines: edit it by hand")
		}
	default:
		return nil, errors.New("the version is a block scalar: edit it by hand")
	}
	written := value
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		written = strconv.Quote(value)
	case n.Style&yaml.SingleQuotedStyle != 0:
		written = "'" + strings.ReplaceAll(value, "'", "''") + "'"
	case !plainString(value):
		written = strconv.Quote(value)
	}
	out := append([]string{}, lines...)
	out[i] = string(line[:start]) + written + rest[end:]
	return out, nil
}

// plainString tells whether value, written plain, reads back as that string.
func plainString(value string) bool {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte("v: "+value), &n); err != nil || len(n.Content) == 0 {
		return false
	}
	v := n.Content[0].Content[1]
	return v.Kind == yaml.ScalarNode && v.Tag == "!!str" && v.Value == value
}

// findDocument is the mapping of the document in data whose kind and metadata.name (or
// target.kind and target.metadata.name, in a stack input) are kind and name.
func findDocument(data []byte, kind, name string) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil, errors.Errorf("no %s named %s in the file", kind, name)
		}
		if err != nil {
			return nil, errors.Wrap(err, "parse the file")
		}
		if len(doc.Content) == 0 {
			continue
		}
		m := doc.Content[0]
		if t := lookup(m, "target"); t != nil && lookup(m, "kind") == nil {
			m = t
		}
		k, meta := lookup(m, "kind"), lookup(m, "metadata")
		if k != nil && k.Value == kind && meta != nil {
			if n := lookup(meta, "name"); n != nil && n.Value == name {
				return m, nil
			}
		}
	}
}

// lookup is the value of key in the mapping m; nil when m is no mapping or has no such key.
func lookup(m *yaml.Node, key string) *yaml.Node {
	_, v := entry(m, key)
	return v
}

func entry(m *yaml.Node, key string) (k, v *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// WriteNext sets the manifest of each plan that has a next step and nothing blocking it to that
// step, file by file, keeping each file's mode: a first step that removes no API (a patch
// release) is written even when a later one is blocked (NextClear). It returns what it wrote,
// "file: name kubernetesVersion version" (and, when later steps are blocked, "; the steps after
// it are blocked: reason"), and why it left each other plan's file alone, "file: name not
// written: reason": a blocked upgrade, a cluster at its goal, a file that says the next step
// already.
func WriteNext(clusters []Cluster, plans []Assessment) (written, notWritten []string, err error) {
	for _, p := range plans {
		if why := notWrittenBecause(p); why != "" {
			notWritten = append(notWritten, fmt.Sprintf("%s: %s not written: %s", p.File, p.Name, why))
			continue
		}
		goal := p.Target
		for _, c := range clusters {
			if c.File == p.File && c.Name == p.Name && c.Kind == p.Kind {
				goal = c.Target()
			}
		}
		data, err := os.ReadFile(p.File)
		if err != nil {
			return written, notWritten, errors.Wrapf(err, "read %s", p.File)
		}
		out, err := Write(data, p.Kind, p.Name, p.Next(), goal)
		if err != nil {
			return written, notWritten, errors.Wrapf(err, "%s", p.File)
		}
		if bytes.Equal(out, data) {
			notWritten = append(notWritten, fmt.Sprintf("%s: %s not written: it says kubernetesVersion %s, the next step, already",
				p.File, p.Name, p.Next()))
			continue
		}
		info, err := os.Stat(p.File)
		if err != nil {
			return written, notWritten, errors.Wrapf(err, "stat %s", p.File)
		}
		if err := os.WriteFile(p.File, out, info.Mode().Perm()); err != nil {
			return written, notWritten, errors.Wrapf(err, "write %s", p.File)
		}
		line := fmt.Sprintf("%s: %s kubernetesVersion %s", p.File, p.Name, p.Next())
		if p.Blocked() {
			line += "; the steps after it are blocked: " + blockers(p)
		}
		written = append(written, line)
	}
	return written, notWritten, nil
}

// blockers names a blocked plan's first blocker, and how many more the plan lists.
func blockers(p Assessment) string {
	why := p.Blockers[0]
	if more := len(p.Blockers) - 1; more > 0 {
		why += fmt.Sprintf(" (and %d more in the plan)", more)
	}
	return why
}

// notWrittenBecause says why a plan's manifest is not written, "" when it is to be: a blocked
// upgrade names its first blocker, so that the user knows what to fix before the next --write.
func notWrittenBecause(p Assessment) string {
	switch {
	case p.Blocked() && !(p.NextClear && p.Next() != ""):
		return "the upgrade is blocked: " + blockers(p)
	case p.Next() == "" && p.Running != "" && p.Running == p.Target:
		return "the cluster runs " + p.Target + ", its goal, already"
	case p.Next() == "":
		return "the plan has no step to take (its notes say why)"
	}
	return ""
}

// WriteFile sets cluster c's manifest, in its file, to version next with goal kept (Write), the
// file replaced whole so that a run killed meanwhile leaves the old file or the new one, never
// half of each, and its mode kept. A file that says next already is left alone.
func WriteFile(c Cluster, next, goal string) error {
	data, err := os.ReadFile(c.File)
	if err != nil {
		return errors.Wrapf(err, "read %s", c.File)
	}
	out, err := Write(data, c.Kind, c.Name, next, goal)
	if err != nil {
		return errors.Wrapf(err, "%s", c.File)
	}
	if bytes.Equal(out, data) {
		return nil
	}
	info, err := os.Stat(c.File)
	if err != nil {
		return errors.Wrapf(err, "stat %s", c.File)
	}
	if err := atomicwrite.File(c.File, out); err != nil {
		return errors.Wrapf(err, "write %s", c.File)
	}
	return errors.Wrapf(os.Chmod(c.File, info.Mode().Perm()), "keep the mode of %s", c.File)
}

// Writable tells whether cluster c's manifest can be walked to its goal (Target): each step
// written (the version line, and the goal annotation added or set) and the goal reached (the
// annotation removed). upgrade apply asks it of every manifest before any cluster is touched, so
// that a manifest it cannot edit (its annotations in flow style) stops nothing half way.
func Writable(c Cluster) error {
	goal := c.Target()
	if goal == "" {
		return nil
	}
	data, err := os.ReadFile(c.File)
	if err != nil {
		return errors.Wrapf(err, "read %s", c.File)
	}
	if _, err := Write(data, c.Kind, c.Name, c.Version+"-next", goal); err != nil {
		return errors.Wrapf(err, "%s", c.File)
	}
	_, err = Write(data, c.Kind, c.Name, goal, goal)
	return errors.Wrapf(err, "%s", c.File)
}
