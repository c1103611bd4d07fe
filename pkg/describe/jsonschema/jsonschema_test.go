package jsonschema_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/describe/jsonschema"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	validator "github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"sigs.k8s.io/yaml"
)

var (
	schemasDir  = filepath.Join("..", "..", "..", "schemas")
	examplesDir = filepath.Join("..", "..", "..", "examples")
)

// compile compiles every committed schema with a real JSON Schema implementation, by file name.
func compile(t *testing.T) map[string]*validator.Schema {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(schemasDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no schemas in %s: %v", schemasDir, err)
	}
	c := validator.NewCompiler()
	c.DefaultDraft(validator.Draft2020)
	c.AssertFormat()
	out := map[string]*validator.Schema{}
	for _, file := range files {
		abs, err := filepath.Abs(file)
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile(abs)
		if err != nil {
			t.Fatalf("%s is not a valid JSON Schema: %v", file, err)
		}
		out[filepath.Base(file)] = s
	}
	return out
}

// instance reads YAML text as the JSON value a schema validates.
func instance(t *testing.T, text []byte) any {
	t.Helper()
	data, err := yaml.YAMLToJSON(text)
	if err != nil {
		t.Fatal(err)
	}
	v, err := validator.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// deploySchemas are the schemas in schemas/ that tools/schemagen copies from pkg/deploy.
var deploySchemas = map[string]bool{"report.v1.schema.json": true, "reportfile.v1.schema.json": true}

func TestTheCommittedSchemasAreWhatTheGeneratorWrites(t *testing.T) {
	want, err := jsonschema.Files(registry.Kinds().StackInputs()...)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 2*len(registry.Kinds().StackInputs()) {
		t.Fatalf("%d schema files for %d kinds, want a manifest and a stack-input schema each", len(want), len(registry.Kinds().StackInputs()))
	}
	committed, err := filepath.Glob(filepath.Join(schemasDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range committed {
		// The deploy report's and the report file's schemas are pkg/deploy's, held by its own tests.
		if _, ok := want[filepath.Base(file)]; !ok && !deploySchemas[filepath.Base(file)] {
			t.Errorf("%s is committed but no kind generates it", file)
		}
	}
	for name, data := range want {
		got, err := os.ReadFile(filepath.Join(schemasDir, name))
		if err != nil {
			t.Errorf("%s is not committed: %v (run make protos)", name, err)
			continue
		}
		if !bytes.Equal(got, data) {
			t.Errorf("schemas/%s is stale; run make protos", name)
		}
	}
}

var modeline = regexp.MustCompile(`(?m)^# yaml-language-server: \$schema=(\S+)$`)

func TestEveryExampleNamesItsSchemaAndIsValidAgainstIt(t *testing.T) {
	schemas := compile(t)
	files, err := filepath.Glob(filepath.Join(examplesDir, "*", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, file := range files {
		if dir := filepath.Base(filepath.Dir(file)); filepath.Base(file) == "Pulumi.yaml" || dir == "ci" || dir == "policy" {
			continue // a project file, a CI workflow (e2e runs those) or a policy (examples/policy_test.go)
		}
		t.Run(filepath.ToSlash(strings.TrimPrefix(file, examplesDir+string(filepath.Separator))), func(t *testing.T) {
			text, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			m := modeline.FindSubmatch(text)
			if m == nil || !bytes.HasPrefix(text, m[0]) {
				t.Fatalf("the first line is not a `# yaml-language-server: $schema=...` line")
			}
			kind := filepath.Base(filepath.Dir(file))
			wantName := kind + ".schema.json"
			if strings.HasSuffix(file, ".stack-input.yaml") {
				wantName = kind + ".stack-input.schema.json"
			}
			ref := filepath.Join(filepath.Dir(file), filepath.FromSlash(string(m[1])))
			if filepath.Clean(ref) != filepath.Join(schemasDir, wantName) {
				t.Fatalf("$schema=%s resolves to %s, want %s", m[1], ref, filepath.Join(schemasDir, wantName))
			}
			s, ok := schemas[wantName]
			if !ok {
				t.Fatalf("no schema %s", wantName)
			}
			if err := s.Validate(instance(t, text)); err != nil {
				t.Errorf("rejected by %s:\n%v", wantName, err)
			}
		})
	}
}

// minimal examples the rejection cases start from, by schema.
const (
	doCluster = `apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesCluster
metadata:
  name: dev-fra1
spec:
  clusterName: dev-fra1
  region: fra1
  kubernetesVersion: 1.31.1-do.5
  defaultNodePool:
    size: s-2vcpu-4gb
    nodeCount: 2
`
	civoPool = `apiVersion: civo.clusterplane.dev/v1
kind: CivoKubernetesNodePool
metadata:
  name: pool
spec:
  nodePoolName: apps
  cluster:
    value: 3c1e0f62-1111-2222-3333-444455556666
  region: fra1
  size: g4s.kube.medium
  nodeCount: 2
  taints:
    - key: dedicated
      value: gpu
      effect: NoSchedule
`
)

func TestTheSchemasAcceptTheStartingPointsAndRejectEachMistake(t *testing.T) {
	schemas := compile(t)
	stackInputs := map[string]protoreflect.MessageDescriptor{}
	for _, md := range registry.Kinds().StackInputs() {
		kind := string(kinds.Manifest(md).Name())
		stackInputs[jsonschema.FileName(kind, false)] = md
		stackInputs[jsonschema.FileName(kind, true)] = md
	}
	stackInput := func(manifest string) string {
		return "target:\n  " + strings.ReplaceAll(strings.TrimSpace(manifest), "\n", "\n  ") + "\nproviderConfig: {}\n"
	}
	// Every case but the snake_case one is judged the same by the validator, so the schema is
	// checked not to be stricter than the tools.
	cases := []struct {
		name, schema, text string
		valid              bool
	}{
		{"a minimal DigitalOcean cluster", "digitaloceankubernetescluster.schema.json", doCluster, true},
		{"a minimal Civo pool", "civokubernetesnodepool.schema.json", civoPool, true},
		{"a stack input around a minimal cluster", "digitaloceankubernetescluster.stack-input.schema.json", stackInput(doCluster), true},
		{"a region the cloud may open after the release", "digitaloceankubernetescluster.schema.json",
			strings.Replace(doCluster, "region: fra1", "region: xyz9", 1), true},
		{"an optional name left empty", "digitaloceankubernetescluster.schema.json",
			strings.Replace(doCluster, "    size:", "    nodePoolName: \"\"\n    size:", 1), true},

		{"an unknown field at the top", "digitaloceankubernetescluster.schema.json", doCluster + "extra: 1\n", false},
		{"an unknown field in spec", "digitaloceankubernetescluster.schema.json", doCluster + "  colour: blue\n", false},
		{"an unknown field in a nested message", "digitaloceankubernetescluster.schema.json", doCluster + "    surge: true\n", false},
		{"an unknown field in a list item", "civokubernetesnodepool.schema.json", civoPool + "      operator: Exists\n", false},
		{"an unknown field in a stack input", "digitaloceankubernetescluster.stack-input.schema.json", stackInput(doCluster) + "credentials: x\n", false},
		{"an unknown field in a stack input's target", "digitaloceankubernetescluster.stack-input.schema.json",
			stackInput(doCluster + "extra: 1\n"), false},
		{"an unknown field in providerConfig", "digitaloceankubernetescluster.stack-input.schema.json",
			strings.Replace(stackInput(doCluster), "providerConfig: {}", "providerConfig: {token: x}", 1), false},
		{"a snake_case name", "digitaloceankubernetescluster.schema.json", strings.Replace(doCluster, "clusterName", "cluster_name", 1), false},
		{"the wrong kind", "digitaloceankubernetescluster.schema.json", strings.Replace(doCluster, "kind: DigitalOcean", "kind: Civo", 1), false},
		{"no apiVersion", "digitaloceankubernetescluster.schema.json", strings.Replace(doCluster, "apiVersion: digitalocean.clusterplane.dev/v1\n", "", 1), false},
		{"no spec.region", "digitaloceankubernetescluster.schema.json", strings.Replace(doCluster, "  region: fra1\n", "", 1), false},
		{"a region in capitals", "digitaloceankubernetescluster.schema.json", strings.Replace(doCluster, "region: fra1", "region: FRA1", 1), false},
		{"a region name too long", "digitaloceankubernetescluster.schema.json", strings.Replace(doCluster, "region: fra1", "region: frankfurt1", 1), false},
		{"an empty size", "digitaloceankubernetescluster.schema.json", strings.Replace(doCluster, "size: s-2vcpu-4gb", `size: ""`, 1), false},
		{"a name that is no DNS label", "digitaloceankubernetescluster.schema.json", strings.Replace(doCluster, "clusterName: dev-fra1", "clusterName: Dev_Fra1", 1), false},
		{"a negative node count", "digitaloceankubernetescluster.schema.json", strings.Replace(doCluster, "nodeCount: 2", "nodeCount: -1", 1), false},
		{"a node count as text", "digitaloceankubernetescluster.schema.json", strings.Replace(doCluster, "nodeCount: 2", "nodeCount: two", 1), false},
		{"a Civo pool without a node count", "civokubernetesnodepool.schema.json", strings.Replace(civoPool, "  nodeCount: 2\n", "", 1), false},
		{"a Civo pool of zero nodes", "civokubernetesnodepool.schema.json", strings.Replace(civoPool, "nodeCount: 2", "nodeCount: 0", 1), false},
		{"a taint without an effect", "civokubernetesnodepool.schema.json", strings.Replace(civoPool, "      effect: NoSchedule\n", "", 1), false},
		{"a cluster given both by value and by reference", "civokubernetesnodepool.schema.json",
			strings.Replace(civoPool, "    value: 3c1e", "    valueFrom: {name: platform}\n    value: 3c1e", 1), false},
		{"a cluster given neither way", "civokubernetesnodepool.schema.json",
			strings.Replace(civoPool, "    value: 3c1e0f62-1111-2222-3333-444455556666\n", "    {}\n", 1), false},
		{"a repeated tag", "digitaloceankubernetescluster.schema.json", doCluster + "  tags: [a, a]\n", false},
		{"a label value that is not text", "digitaloceankubernetescluster.schema.json", doCluster + "    labels: {gpu: true}\n", false},
		{"a label key with a space", "digitaloceankubernetescluster.schema.json", doCluster + "    labels: {\"a b\": x}\n", false},
		{"an API URL that is no URI", "digitaloceankubernetescluster.stack-input.schema.json",
			strings.Replace(stackInput(doCluster), "providerConfig: {}", "providerConfig: {apiUrl: \"not a uri\"}", 1), false},
		{"a subnet that is no CIDR", "digitaloceankubernetescluster.schema.json", doCluster + "  clusterSubnet: 10.244.0.0\n", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, ok := schemas[c.schema]
			if !ok {
				t.Fatalf("no schema %s", c.schema)
			}
			err := s.Validate(instance(t, []byte(c.text)))
			if c.valid && err != nil {
				t.Errorf("rejected:\n%v\n%s", err, c.text)
			}
			if !c.valid && err == nil {
				t.Errorf("accepted:\n%s", c.text)
			}
			toolErr := stackinput.Parse([]byte(c.text), c.name, dynamicpb.NewMessage(stackInputs[c.schema]))
			if snakeCase := strings.Contains(c.text, "cluster_name"); (toolErr == nil) != (c.valid || snakeCase) {
				t.Errorf("the validator disagrees with the schema: %v", toolErr)
			}
		})
	}
}

// Promise: schemas-as-written
func TestNoSchemaOffersAnEnumsUnsetValueAndEveryPropertyIsDescribed(t *testing.T) {
	files, err := jsonschema.Files(registry.Kinds().StackInputs()...)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var walk func(path string, v any)
		walk = func(path string, v any) {
			switch v := v.(type) {
			case map[string]any:
				if enum, ok := v["enum"].([]any); ok {
					for _, e := range enum {
						if s, _ := e.(string); strings.HasSuffix(s, "_UNSPECIFIED") || s == "" {
							t.Errorf("%s %s offers %q", name, path, s)
						}
					}
				}
				if props, ok := v["properties"].(map[string]any); ok {
					for prop, p := range props {
						if d, _ := p.(map[string]any)["description"].(string); d == "" {
							t.Errorf("%s %s.%s has no description", name, path, prop)
						}
					}
				}
				for k, child := range v {
					walk(path+"/"+k, child)
				}
			case []any:
				for i, child := range v {
					walk(path+"/"+string(rune('0'+i%10)), child)
				}
			}
		}
		walk("#", doc)
	}
}

func TestARegionIsAnyStringSpelledAsARegionIs(t *testing.T) {
	files, err := jsonschema.Files(registry.Kinds().StackInputs()...)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs map[string]struct {
			Properties map[string]struct {
				Type    string   `json:"type"`
				Pattern string   `json:"pattern"`
				Enum    []string `json:"enum"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(files["civokubernetescluster.schema.json"], &doc); err != nil {
		t.Fatal(err)
	}
	// An enum would refuse, in every editor, a region Civo opens after the release.
	got := doc.Defs["clusterplane.provider.civo.civokubernetescluster.v1.CivoKubernetesClusterSpec"].Properties["region"]
	if got.Type != "string" || got.Pattern != `^[a-z]{2,5}[0-9]{1,2}$` || got.Enum != nil {
		t.Errorf("Civo cluster region = %+v, want a string of the region pattern and no enum", got)
	}
}
