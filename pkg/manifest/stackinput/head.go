package stackinput

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pkg/errors"
	"go.yaml.in/yaml/v3"
)

// Head is what a file says it is before it is parsed as any kind: the apiVersion and kind of its
// manifest, at the top of a bare manifest or under target in a stack input.
type Head struct {
	APIVersion string
	Kind       string
	// StackInput is true when the file has the shape of a stack input (target, providerConfig).
	StackInput bool
}

// OtherGroups are the API groups under clusterplane.dev that are no manifest of clusterplane's
// own: the Karpenter provider's NodeClasses (karpenter/pkg/apis/v1.Group), which live in the
// same folders as the clusters they scale and are applied with kubectl, not deployed.
var OtherGroups = []string{"karpenter.clusterplane.dev"}

// Claimed reports whether the file claims to be a Clusterplane manifest or stack input, so that
// an unknown or missing kind is a mistake rather than some other YAML file. Any group under
// clusterplane.dev claims it, a misspelt cloud's included, except OtherGroups.
func (h Head) Claimed() bool {
	if h.StackInput {
		return true
	}
	group, _, ok := strings.Cut(h.APIVersion, "/")
	return ok && strings.HasSuffix(group, ".clusterplane.dev") && !slices.Contains(OtherGroups, group)
}

// ErrNotAMapping is ReadHead's error for YAML or JSON text that is not a mapping.
var ErrNotAMapping = errors.New("not a mapping: a manifest or stack input has apiVersion or target at the top")

// ErrEmpty is ReadHead's error for text that is empty or only comments. It is an ErrNotAMapping
// too, but never skipped: an empty manifest is most often a truncated one.
var ErrEmpty = fmt.Errorf("holds no manifest: the file is empty or only comments (%w)", ErrNotAMapping)

// ReadHead reads the head of YAML or JSON text with the loader's own strict parser. It fails
// when the text is not YAML or JSON (with an *Error whose problem has no file: the caller names
// it), with ErrEmpty when it is empty and ErrNotAMapping when it is not a mapping; a mapping that
// names no kind has an empty Kind.
func ReadHead(data []byte) (Head, error) {
	root, problem := document(data, "")
	switch {
	case problem != nil && problem.RuleID == "file.empty":
		return Head{}, ErrEmpty
	case problem != nil && problem.RuleID == "yaml.type":
		return Head{}, ErrNotAMapping
	case problem != nil:
		return Head{}, &Error{Problems: []Problem{*problem}}
	}
	h := Head{}
	manifest := root
	for _, key := range []string{"target", "providerConfig", "provider_config"} {
		if valueOf(root, key) != nil {
			h.StackInput = true
		}
	}
	if target := valueOf(root, "target"); target != nil && target.Kind == yaml.MappingNode {
		manifest = target
	}
	h.APIVersion = firstString(manifest, "apiVersion", "api_version")
	h.Kind = firstString(manifest, "kind")
	return h, nil
}

// KindAt is the line and column of the kind a manifest (or a stack input's target) names, 0, 0
// when the text names none that can be read.
func KindAt(data []byte) (line, column int) {
	root, problem := document(data, "")
	if problem != nil {
		return 0, 0
	}
	if target := valueOf(root, "target"); target != nil && target.Kind == yaml.MappingNode {
		root = target
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "kind" {
			return root.Content[i+1].Line, root.Content[i+1].Column
		}
	}
	return 0, 0
}

// valueOf is the value of key in the mapping m, or nil.
func valueOf(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func firstString(m *yaml.Node, keys ...string) string {
	for _, key := range keys {
		if v := valueOf(m, key); v != nil && v.Kind == yaml.ScalarNode && v.Tag == "!!str" {
			return v.Value
		}
	}
	return ""
}

// MaxQuoted is how many characters of a value read from a file an error message quotes.
const MaxQuoted = 64

// Quote quotes a value read from a file (a kind, a name) for an error message. It is Go-quoted,
// so that no control character or terminal escape in a hostile file reaches the terminal, and cut
// to MaxQuoted characters, so that a huge value cannot flood it; the cut says how long the value
// was.
func Quote(s string) string {
	n := 0
	for i := range s {
		if n == MaxQuoted {
			return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:i]), len(s))
		}
		n++
	}
	return strconv.Quote(s)
}
