// Package providerschema checks what a module registers against the pinned providers' published
// Pulumi schemas (../shared/providers/*.schema.json beside the repository): every input exists
// with its type, required inputs are present, enum values are valid and every ignoreChanges path
// names a property. It is for tests; a user's clone has no ../shared, and the tests skip then.
package providerschema

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// property is a schema property: a type, a reference to a named type, or a choice of either.
type property struct {
	Type                 string     `json:"type"`
	Ref                  string     `json:"$ref"`
	Items                *property  `json:"items"`
	AdditionalProperties *property  `json:"additionalProperties"`
	OneOf                []property `json:"oneOf"`
}

// object is a resource's inputs, the provider's, or a named object type's properties.
type object struct {
	Properties map[string]property `json:"properties"`
	Required   []string            `json:"required"`
	// InState are the properties always present in state: required or computed.
	InState []string
}

type namedType struct {
	Type       string              `json:"type"`
	Properties map[string]property `json:"properties"`
	Required   []string            `json:"required"`
	// Language.Nodejs.RequiredOutputs are the properties always present in state: required or
	// computed. Absent, they are Required.
	Language struct {
		Nodejs struct {
			RequiredOutputs []string `json:"requiredOutputs"`
		} `json:"nodejs"`
	} `json:"language"`
	Enum []struct {
		Value any `json:"value"`
	} `json:"enum"`
}

type file struct {
	Name     string `json:"name"`
	Provider struct {
		InputProperties map[string]property `json:"inputProperties"`
	} `json:"provider"`
	Resources map[string]struct {
		// IsComponent marks the clusterplane plugin's components, which register other
		// resources rather than being checked as one.
		IsComponent     bool                `json:"isComponent"`
		InputProperties map[string]property `json:"inputProperties"`
		RequiredInputs  []string            `json:"requiredInputs"`
		Required        []string            `json:"required"`
	} `json:"resources"`
	Types map[string]namedType `json:"types"`
}

// Schema is the pinned providers' schemas, by type token.
type Schema struct {
	resources map[string]object
	types     map[string]namedType
}

// Dir finds ../shared/providers beside the repository that holds the working directory.
func Dir() (string, bool) { return Shared("providers") }

// Shared finds the folder name of ../shared beside the repository that holds the working
// directory; a user's clone has no ../shared, and tests that need it skip, saying so.
func Shared(name string) (string, bool) {
	root, ok := repoRoot()
	if !ok {
		return "", false
	}
	dir := filepath.Join(root, "..", "shared", name)
	if _, err := os.Stat(dir); err != nil {
		return "", false
	}
	return dir, true
}

// repoRoot is the folder of the go.mod above the working directory.
func repoRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// Load reads every *.schema.json in dir.
func Load(dir string) (*Schema, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.schema.json"))
	if err != nil || len(paths) == 0 {
		return nil, errors.Errorf("no provider schemas in %s", dir)
	}
	s := &Schema{resources: map[string]object{}, types: map[string]namedType{}}
	for _, path := range paths {
		if err := s.add(path); err != nil {
			return nil, err
		}
	}
	return s, s.addPlugin()
}

// add adds the provider, custom resources and types of the schema file at path.
func (s *Schema) add(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return errors.Wrap(err, "read provider schema")
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return errors.Wrapf(err, "parse %s", path)
	}
	s.resources["pulumi:providers:"+f.Name] = object{Properties: f.Provider.InputProperties}
	for token, r := range f.Resources {
		if !r.IsComponent {
			s.resources[token] = object{Properties: r.InputProperties, Required: r.RequiredInputs, InState: r.Required}
		}
	}
	for token, t := range f.Types {
		s.types[token] = t
	}
	return nil
}

// addPlugin adds the custom resources of this repository's own plugin (the Civo node pool) and
// its provider, from the schema `make protos` writes: the modules register them too.
func (s *Schema) addPlugin() error {
	root, ok := repoRoot()
	if !ok {
		return errors.New("no go.mod above the working directory")
	}
	return s.add(filepath.Join(root, "cmd", "pulumi-resource-clusterplane", "schema.json"))
}

// Knows tells whether the schema describes resources of type typ.
func (s *Schema) Knows(typ string) bool {
	_, ok := s.resources[typ]
	return ok
}

// Check returns what in r does not fit its provider's schema; nil when all does.
func (s *Schema) Check(r mockrun.Resource) []string {
	res, ok := s.resources[r.Type]
	if !ok {
		return []string{fmt.Sprintf("%s is not a resource of the pinned providers", r.Type)}
	}
	var problems []string
	s.checkObject(r.Type, res, r.RawInputs, &problems)
	for _, path := range r.IgnoreChanges {
		if !s.hasPath(res.Properties, strings.Split(path, ".")) {
			problems = append(problems, fmt.Sprintf("%s: ignoreChanges path %q names no input", r.Type, path))
		}
	}
	sort.Strings(problems)
	return problems
}

func (s *Schema) checkObject(at string, o object, values resource.PropertyMap, problems *[]string) {
	for _, name := range o.Required {
		if v, ok := values[resource.PropertyKey(name)]; !ok || v.IsNull() {
			*problems = append(*problems, fmt.Sprintf("%s: required input %s is missing", at, name))
		}
	}
	for key, v := range values {
		p, ok := o.Properties[string(key)]
		if !ok {
			*problems = append(*problems, fmt.Sprintf("%s: %s is not an input of the provider", at, key))
			continue
		}
		s.checkValue(at+"."+string(key), p, v, problems)
	}
}

func (s *Schema) checkValue(at string, p property, v resource.PropertyValue, problems *[]string) {
	for v.IsSecret() || v.IsOutput() {
		if v.IsSecret() {
			v = v.SecretValue().Element
		} else {
			if !v.OutputValue().Known {
				return
			}
			v = v.OutputValue().Element
		}
	}
	if v.IsComputed() || v.IsNull() {
		return
	}
	if len(p.OneOf) > 0 {
		for _, alt := range p.OneOf {
			var alternative []string
			s.checkValue(at, alt, v, &alternative)
			if len(alternative) == 0 {
				return
			}
		}
		*problems = append(*problems, fmt.Sprintf("%s: %v fits none of the provider's types", at, v))
		return
	}
	if p.Ref != "" {
		t, ok := s.types[strings.TrimPrefix(p.Ref, "#/types/")]
		if !ok {
			*problems = append(*problems, fmt.Sprintf("%s: the schema has no type %s", at, p.Ref))
			return
		}
		if len(t.Enum) > 0 {
			for _, e := range t.Enum {
				if v.IsString() && e.Value == v.StringValue() {
					return
				}
			}
			*problems = append(*problems, fmt.Sprintf("%s: %v is not a value of %s", at, v, p.Ref))
			return
		}
		if !v.IsObject() {
			*problems = append(*problems, fmt.Sprintf("%s: want an object (%s), got %v", at, p.Ref, v.TypeString()))
			return
		}
		s.checkObject(at, object{Properties: t.Properties, Required: t.Required}, v.ObjectValue(), problems)
		return
	}
	ok := true
	switch p.Type {
	case "string":
		ok = v.IsString()
	case "boolean":
		ok = v.IsBool()
	case "integer":
		ok = v.IsNumber() && v.NumberValue() == float64(int64(v.NumberValue()))
	case "number":
		ok = v.IsNumber()
	case "array":
		if ok = v.IsArray(); ok && p.Items != nil {
			for i, item := range v.ArrayValue() {
				s.checkValue(fmt.Sprintf("%s[%d]", at, i), *p.Items, item, problems)
			}
		}
	case "object":
		if ok = v.IsObject(); ok && p.AdditionalProperties != nil {
			for key, item := range v.ObjectValue() {
				s.checkValue(at+"."+string(key), *p.AdditionalProperties, item, problems)
			}
		}
	}
	if !ok {
		*problems = append(*problems, fmt.Sprintf("%s: want %s, got %s", at, p.Type, v.TypeString()))
	}
}

// hasPath tells whether path names a property below props, through objects, arrays and maps.
func (s *Schema) hasPath(props map[string]property, path []string) bool {
	p, ok := props[path[0]]
	if !ok {
		return false
	}
	if len(path) == 1 {
		return true
	}
	for p.Ref == "" && (p.Items != nil || p.AdditionalProperties != nil) {
		if p.Items != nil {
			p = *p.Items
		} else {
			p = *p.AdditionalProperties
		}
	}
	t, ok := s.types[strings.TrimPrefix(p.Ref, "#/types/")]
	return ok && s.hasPath(t.Properties, path[1:])
}

// AssertPlanConforms plans body as a preview and fails t for every registered resource of the
// pinned providers that does not fit their schemas. It skips, saying so, without ../shared.
func AssertPlanConforms(t *testing.T, body pulumi.RunFunc) {
	t.Helper()
	dir, ok := Dir()
	if !ok {
		t.Skip("../shared/providers is absent (a user's clone has none): not checked against the pinned provider schemas")
	}
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := mockrun.Run(body, mockrun.Options{Preview: true})
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	checked := 0
	for _, r := range p.Resources {
		if strings.HasPrefix(r.Type, "clusterplane:") || r.Type == mockrun.StackReferenceType {
			continue
		}
		checked++
		for _, problem := range s.Check(r) {
			t.Error(problem)
		}
	}
	if checked == 0 {
		t.Error("the plan registered no provider resource to check")
	}
}

// SentAttributes are the Terraform attributes of every input r sends, as "name" or, inside a
// block of at most one (an object type), "block.name". Maps and lists (taints, firewall rules,
// the autoscaler configuration) are one attribute each.
func (s *Schema) SentAttributes(r mockrun.Resource) []string {
	props := s.resources[r.Type].Properties
	var out []string
	for key, v := range r.RawInputs {
		name := effects.TerraformName(string(key))
		out = append(out, name)
		p, v := props[string(key)], plain(v)
		if _, block := s.types[strings.TrimPrefix(p.Ref, "#/types/")]; !block || !v.IsObject() {
			continue
		}
		for inner := range v.ObjectValue() {
			out = append(out, name+"."+effects.TerraformName(string(inner)))
		}
	}
	sort.Strings(out)
	return out
}

// plain is v without its secret or output wrapping.
func plain(v resource.PropertyValue) resource.PropertyValue {
	for v.IsSecret() || v.IsOutput() {
		if v.IsSecret() {
			v = v.SecretValue().Element
		} else {
			v = v.OutputValue().Element
		}
	}
	return v
}

// Flags tells what the pinned Pulumi schema says of a Terraform attribute of the resource type
// token, "name" or "block.name": whether it is a required input, and whether it is always in
// state (required or computed). found is false when the schema has no such attribute.
func (s *Schema) Flags(token, attribute string) (requiredInput, inState, found bool) {
	res, ok := s.resources[token]
	if !ok {
		return false, false, false
	}
	props, required, state := res.Properties, res.Required, res.InState
	parts := strings.Split(attribute, ".")
	for i, part := range parts {
		name, p, ok := byTerraformName(props, part)
		if !ok {
			return false, false, false
		}
		if i == len(parts)-1 {
			return slices.Contains(required, name), slices.Contains(state, name), true
		}
		for p.Items != nil {
			p = *p.Items
		}
		t, ok := s.types[strings.TrimPrefix(p.Ref, "#/types/")]
		if !ok {
			return false, false, false
		}
		props, required, state = t.Properties, t.Required, t.Language.Nodejs.RequiredOutputs
		if len(state) == 0 {
			state = t.Required
		}
	}
	return false, false, false
}

func byTerraformName(props map[string]property, attribute string) (string, property, bool) {
	for name, p := range props {
		if effects.TerraformName(name) == attribute {
			return name, p, true
		}
	}
	return "", property{}, false
}
