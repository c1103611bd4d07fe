// Package kubeschema checks custom resources offline against their CustomResourceDefinitions, as
// the Kubernetes API server would on create: each served version's OpenAPI v3 schema (types,
// required fields, enums, patterns, lengths, minimums), its x-kubernetes-validations CEL rules, and
// no field the schema does not declare (the server would prune it silently; an export that writes
// one is wrong). It covers what the schemas under ../shared/pko use; metadata is checked as the
// server checks names.
package kubeschema

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"cel.dev/cel-go/cel"
	"github.com/clusterplane/clusterplane/internal/testing/providerschema"
	"github.com/pkg/errors"
	"sigs.k8s.io/yaml"
)

// Schema is one OpenAPI v3 schema node, as CRDs write it.
type Schema struct {
	Type                 string             `json:"type"`
	Properties           map[string]*Schema `json:"properties"`
	AdditionalProperties *Schema            `json:"additionalProperties"`
	Items                *Schema            `json:"items"`
	Required             []string           `json:"required"`
	Enum                 []any              `json:"enum"`
	Pattern              string             `json:"pattern"`
	MaxLength            *int               `json:"maxLength"`
	MinLength            *int               `json:"minLength"`
	Minimum              *float64           `json:"minimum"`
	AnyOf                []*Schema          `json:"anyOf"`
	PreserveUnknown      bool               `json:"x-kubernetes-preserve-unknown-fields"`
	IntOrString          bool               `json:"x-kubernetes-int-or-string"`
	Validations          []struct {
		Rule    string `json:"rule"`
		Message string `json:"message"`
	} `json:"x-kubernetes-validations"`
}

type crd struct {
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind string `json:"kind"`
		} `json:"names"`
		Versions []struct {
			Name   string `json:"name"`
			Served bool   `json:"served"`
			Schema struct {
				OpenAPIV3Schema *Schema `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

// Set is the schemas of every served version of some CRDs, by apiVersion and kind.
type Set map[string]*Schema

// Load reads CRD files.
func Load(files ...string) (Set, error) {
	set := Set{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		var c crd
		if err := yaml.Unmarshal(data, &c); err != nil {
			return nil, errors.Wrap(err, file)
		}
		for _, v := range c.Spec.Versions {
			if v.Served && v.Schema.OpenAPIV3Schema != nil {
				set[c.Spec.Group+"/"+v.Name+"/"+c.Spec.Names.Kind] = v.Schema.OpenAPIV3Schema
			}
		}
	}
	return set, nil
}

// Validate checks one object, returning every problem with its path.
func (s Set) Validate(obj map[string]any) []error {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	schema, ok := s[apiVersion+"/"+kind]
	if !ok {
		return []error{errors.Errorf("no CRD serves %s %s", apiVersion, kind)}
	}
	v := &validator{}
	v.walk(schema, obj, "")
	v.metadata(obj)
	return v.errs
}

type validator struct{ errs []error }

func (v *validator) fail(path, format string, args ...any) {
	if path == "" {
		path = "."
	}
	v.errs = append(v.errs, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...)))
}

// name is a DNS-1123 subdomain, as every object's name must be.
var name = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

func (v *validator) metadata(obj map[string]any) {
	md, _ := obj["metadata"].(map[string]any)
	n, _ := md["name"].(string)
	if n == "" || len(n) > 253 || !name.MatchString(n) {
		v.fail("metadata.name", "%q is not a DNS-1123 subdomain", n)
	}
	for _, key := range []string{"labels", "annotations"} {
		m, ok := md[key].(map[string]any)
		if md[key] != nil && !ok {
			v.fail("metadata."+key, "must be a map of strings")
		}
		for k, val := range m {
			if _, ok := val.(string); !ok {
				v.fail("metadata."+key+"."+k, "must be a string")
			}
		}
	}
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func (v *validator) walk(s *Schema, value any, path string) {
	if s == nil {
		return
	}
	if len(s.AnyOf) > 0 && !s.IntOrString {
		matched := false
		for _, alt := range s.AnyOf {
			sub := &validator{}
			sub.walk(alt, value, path)
			if len(sub.errs) == 0 {
				matched = true
				break
			}
		}
		if !matched {
			v.fail(path, "matches none of its alternatives")
		}
	}
	if !v.typed(s, value, path) {
		return
	}
	switch val := value.(type) {
	case map[string]any:
		v.object(s, val, path)
	case []any:
		for i, item := range val {
			v.walk(s.Items, item, fmt.Sprintf("%s[%d]", path, i))
		}
	case string:
		if s.Pattern != "" {
			if re, err := regexp.Compile(s.Pattern); err == nil && !re.MatchString(val) {
				v.fail(path, "%q does not match %s", val, s.Pattern)
			}
		}
		if s.MaxLength != nil && len(val) > *s.MaxLength {
			v.fail(path, "longer than %d characters", *s.MaxLength)
		}
		if s.MinLength != nil && len(val) < *s.MinLength {
			v.fail(path, "shorter than %d characters", *s.MinLength)
		}
	case float64:
		if s.Minimum != nil && val < *s.Minimum {
			v.fail(path, "less than %v", *s.Minimum)
		}
	}
	if len(s.Enum) > 0 {
		found := false
		for _, e := range s.Enum {
			if fmt.Sprint(e) == fmt.Sprint(value) {
				found = true
			}
		}
		if !found {
			v.fail(path, "%v is not one of %v", value, s.Enum)
		}
	}
	for _, rule := range s.Validations {
		v.cel(rule.Rule, rule.Message, value, path)
	}
}

// typed checks the value's type; false when it is wrong (nothing below it is checked then).
func (v *validator) typed(s *Schema, value any, path string) bool {
	if s.IntOrString {
		switch value.(type) {
		case string, float64:
			return true
		}
		v.fail(path, "must be an integer or a string")
		return false
	}
	ok := true
	switch s.Type {
	case "":
		return true
	case "object":
		_, ok = value.(map[string]any)
	case "array":
		_, ok = value.([]any)
	case "string":
		_, ok = value.(string)
	case "boolean":
		_, ok = value.(bool)
	case "integer":
		f, isNum := value.(float64)
		ok = isNum && f == float64(int64(f))
	case "number":
		_, ok = value.(float64)
	}
	if !ok {
		v.fail(path, "must be of type %s, not %T", s.Type, value)
	}
	return ok
}

func (v *validator) object(s *Schema, obj map[string]any, path string) {
	for _, r := range s.Required {
		if _, ok := obj[r]; !ok {
			v.fail(join(path, r), "required")
		}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if p, ok := s.Properties[k]; ok {
			v.walk(p, obj[k], join(path, k))
			continue
		}
		switch {
		case s.AdditionalProperties != nil:
			v.walk(s.AdditionalProperties, obj[k], join(path, k))
		case s.PreserveUnknown || (s.Properties == nil && s.Type == "object" && path == "metadata"):
		default:
			v.fail(join(path, k), "unknown field: the schema declares none of this name")
		}
	}
}

// cel evaluates one x-kubernetes-validations rule with self bound to the value, as the API
// server does (with the standard CEL library; Kubernetes' own extensions are not needed by the
// rules checked here, and a rule that uses one fails to compile, loudly).
func (v *validator) cel(rule, message string, value any, path string) {
	env, err := cel.NewEnv(cel.Variable("self", cel.DynType))
	if err != nil {
		v.fail(path, "CEL: %v", err)
		return
	}
	ast, iss := env.Compile(rule)
	if iss.Err() != nil {
		v.fail(path, "the rule %q does not compile: %v", rule, iss.Err())
		return
	}
	prg, err := env.Program(ast)
	if err != nil {
		v.fail(path, "the rule %q: %v", rule, err)
		return
	}
	out, _, err := prg.Eval(map[string]any{"self": value})
	if err != nil {
		v.fail(path, "the rule %q: %v", rule, err)
		return
	}
	if ok, _ := out.Value().(bool); !ok {
		if message == "" {
			message = "fails " + strings.TrimSpace(rule)
		}
		v.fail(path, "%s", message)
	}
}

// PKODir is ../shared/pko next to the repository: the Pulumi Kubernetes Operator's CRDs, absent
// from a user's clone (tests skip, saying so).
func PKODir() (string, bool) { return providerschema.Shared("pko") }
