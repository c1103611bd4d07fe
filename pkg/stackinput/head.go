package stackinput

import (
	"strings"

	"github.com/pkg/errors"
	"sigs.k8s.io/yaml"
)

// Head is what a file says it is before it is parsed as any kind: the apiVersion and kind of its
// manifest, at the top of a bare manifest or under target in a stack input.
type Head struct {
	APIVersion string
	Kind       string
	// StackInput is true when the file has the shape of a stack input (target, providerConfig).
	StackInput bool
}

// Claimed reports whether the file claims to be a Clusterplane manifest or stack input, so that
// an unknown or missing kind is a mistake rather than some other YAML file.
func (h Head) Claimed() bool {
	return h.StackInput || strings.Contains(h.APIVersion, ".clusterplane.dev/")
}

// ErrNotAMapping is ReadHead's error for YAML or JSON text that is not a mapping.
var ErrNotAMapping = errors.New("not a mapping: a manifest or stack input has apiVersion or target at the top")

// ReadHead reads the head of YAML or JSON text. It fails when the text is not YAML or JSON, and
// with ErrNotAMapping when it is not a mapping; a mapping that names no kind has an empty Kind.
func ReadHead(data []byte) (Head, error) {
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Head{}, errors.Wrap(err, "not YAML or JSON")
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return Head{}, ErrNotAMapping
	}
	h := Head{}
	manifest := top
	for _, key := range []string{"target", "providerConfig", "provider_config"} {
		if _, ok := top[key]; ok {
			h.StackInput = true
		}
	}
	if target, ok := top["target"].(map[string]any); ok {
		manifest = target
	}
	h.APIVersion = firstString(manifest, "apiVersion", "api_version")
	h.Kind = firstString(manifest, "kind")
	return h, nil
}

func firstString(m map[string]any, keys ...string) string {
	for _, key := range keys {
		if s, ok := m[key].(string); ok {
			return s
		}
	}
	return ""
}
