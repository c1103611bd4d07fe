// Command crdschema writes a JSON Schema for each NodeClass from its generated CRD, so that an
// editor checks a NodeClass file as it checks clusterplane's manifests (schemas/), and copies
// Karpenter core's CRDs beside the provider's into the chart. `make karpenter-generate` runs it:
//
//	go run ./tools/crdschema -crds chart/crds -core <karpenter module>/pkg/apis/crds -out schemas
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

func main() {
	crds := flag.String("crds", "chart/crds", "the folder of the provider's generated CRDs, where core's are copied too")
	core := flag.String("core", "", "the folder of Karpenter core's CRDs")
	out := flag.String("out", "schemas", "the folder the JSON Schemas are written to")
	flag.Parse()
	if err := run(*crds, *core, *out); err != nil {
		fmt.Fprintln(os.Stderr, "crdschema:", err)
		os.Exit(1)
	}
}

func run(crds, core, out string) error {
	if core != "" {
		if err := copyCore(core, crds); err != nil {
			return err
		}
	}
	files, err := filepath.Glob(filepath.Join(crds, "karpenter.clusterplane.dev_*.yaml"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no karpenter.clusterplane.dev CRD in %s", crds)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	sort.Strings(files)
	for _, f := range files {
		if err := writeSchema(f, out); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	return nil
}

// copyCore copies Karpenter core's CRDs (NodePool, NodeClaim, NodeOverlay) into the chart: the
// operator needs them installed, and the chart ships the ones of the core version go.mod pins.
func copyCore(from, to string) error {
	files, err := filepath.Glob(filepath.Join(from, "karpenter.sh_*.yaml"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no karpenter.sh CRD in %s", from)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(to, filepath.Base(f)), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// crd is the part of a CustomResourceDefinition a schema is made from.
type crd struct {
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind string `json:"kind"`
		} `json:"names"`
		Versions []struct {
			Name   string `json:"name"`
			Schema struct {
				OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

// writeSchema writes <kind>.schema.json: the CRD's OpenAPI schema (a JSON Schema dialect; its
// x-kubernetes-* keys are annotations a JSON Schema validator ignores), with apiVersion and kind
// fixed to the CRD's and both required.
func writeSchema(file, out string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var c crd
	if err := yaml.Unmarshal(data, &c); err != nil {
		return err
	}
	if len(c.Spec.Versions) != 1 {
		return fmt.Errorf("want one version, found %d", len(c.Spec.Versions))
	}
	v := c.Spec.Versions[0]
	s := v.Schema.OpenAPIV3Schema
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		return fmt.Errorf("the schema has no properties")
	}
	props["apiVersion"] = map[string]any{"const": c.Spec.Group + "/" + v.Name}
	props["kind"] = map[string]any{"const": c.Spec.Names.Kind}
	s["required"] = []string{"apiVersion", "kind", "spec"}
	s["$schema"] = "http://json-schema.org/draft-07/schema#"
	s["title"] = c.Spec.Names.Kind
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return err
	}
	name := strings.ToLower(c.Spec.Names.Kind) + ".schema.json"
	return os.WriteFile(filepath.Join(out, name), buf.Bytes(), 0o644)
}
