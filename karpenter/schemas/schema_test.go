// Package schemas holds the NodeClasses' JSON Schemas (make karpenter-generate writes them);
// its test checks the examples against them.
package schemas

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"
)

func compile(t *testing.T, file string) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(file, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(file)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// instance is a YAML document as the validator reads JSON.
func instance(t *testing.T, doc string) any {
	t.Helper()
	b, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestTheExampleNodeClassesAreValid(t *testing.T) {
	files, _ := filepath.Glob("../examples/*.yaml")
	if len(files) == 0 {
		t.Fatal("no examples")
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---") {
			var head struct{ Kind string }
			b, _ := yaml.YAMLToJSON([]byte(doc))
			_ = json.Unmarshal(b, &head)
			if !strings.HasSuffix(head.Kind, "NodeClass") {
				continue
			}
			if err := compile(t, strings.ToLower(head.Kind)+".schema.json").Validate(instance(t, doc)); err != nil {
				t.Errorf("%s: %v", file, err)
			}
		}
	}
}

// Promise: karpenter-nodeclass-taint-and-label-rules
func TestTheSchemaRefusesWhatTheAPIServerWould(t *testing.T) {
	s := compile(t, "digitaloceannodeclass.schema.json")
	for _, tc := range []struct{ name, doc string }{
		{"a NodeClass without a spec", "apiVersion: karpenter.clusterplane.dev/v1\nkind: DigitalOceanNodeClass\nmetadata: {name: a}\n"},
		{"a spec without a cluster", "apiVersion: karpenter.clusterplane.dev/v1\nkind: DigitalOceanNodeClass\nspec: {labels: {a: b}}\n"},
		{"another kind", "apiVersion: karpenter.clusterplane.dev/v1\nkind: CivoNodeClass\nspec: {cluster: {id: x}}\n"},
		{"a label value that is not a string", "apiVersion: karpenter.clusterplane.dev/v1\nkind: DigitalOceanNodeClass\n" +
			"spec: {cluster: {id: x}, labels: {a: {b: c}}}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.Validate(instance(t, tc.doc)); err == nil {
				t.Error("valid, want refused")
			}
		})
	}
}
