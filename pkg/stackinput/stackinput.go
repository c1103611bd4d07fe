// Package stackinput finds, parses and validates the stack input a program deploys: a manifest and
// the provider credentials to deploy it with.
package stackinput

import (
	"encoding/json"
	"os"
	"regexp"

	"github.com/clusterplane/clusterplane/pkg/validation"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"sigs.k8s.io/yaml"
)

// Where a stack input is looked for, in this order.
const (
	// ConfigKey is the Pulumi config key holding the stack input as YAML or JSON text.
	ConfigKey = "stackInput"
	// FileEnv names a stack-input file.
	FileEnv = "STACK_INPUT_FILE"
)

// DefaultFiles are read from the working directory when neither ConfigKey nor FileEnv is set.
var DefaultFiles = []string{"stack-input.json", "stack-input.yaml", "stack-input.yml"}

// Load fills input, a stack-input message, from the Pulumi config key stackInput, else the file
// named by STACK_INPUT_FILE, else the first of DefaultFiles that exists, and validates it.
func Load(ctx *pulumi.Context, input proto.Message) error {
	if text := config.Get(ctx, ConfigKey); text != "" {
		return Parse([]byte(text), "config "+ConfigKey, input)
	}
	if path := os.Getenv(FileEnv); path != "" {
		return LoadFile(path, input)
	}
	for _, path := range DefaultFiles {
		if _, err := os.Stat(path); err == nil {
			return LoadFile(path, input)
		}
	}
	return errors.Errorf("no stack input: set the Pulumi config key %q, set %s, or put one of %v in the working directory",
		ConfigKey, FileEnv, DefaultFiles)
}

// LoadFile fills input from the YAML or JSON file at path and validates it.
func LoadFile(path string, input proto.Message) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return errors.Wrap(err, "read stack input")
	}
	return Parse(data, path, input)
}

// Parse fills input from YAML or JSON text and validates it. The text is either a full stack
// input (target, providerConfig) or a bare manifest (apiVersion, kind, metadata, spec), whose
// provider config then comes from the environment. Unknown fields are errors. Violations of a bare
// manifest are reported with paths relative to the manifest (spec.x), of a stack input relative to
// the stack input (target.spec.x). source names the text in errors.
func Parse(data []byte, source string, input proto.Message) error {
	jsonData, err := yaml.YAMLToJSON(data)
	if err != nil {
		return errors.Wrapf(err, "%s: not YAML or JSON", source)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(jsonData, &top); err != nil {
		return errors.Errorf("%s: must be a mapping with either target or apiVersion at the top", source)
	}
	bare := isManifest(top)
	if bare {
		if jsonData, err = json.Marshal(map[string]json.RawMessage{"target": jsonData}); err != nil {
			return errors.Wrap(err, "wrap manifest")
		}
	}
	proto.Reset(input)
	if err := protojson.Unmarshal(jsonData, input); err != nil {
		// Positions refer to the JSON the YAML was turned into, not to the user's file.
		return errors.Errorf("%s: %s", source, jsonPosition.ReplaceAllString(err.Error(), ""))
	}
	checked := input
	if bare {
		checked = Target(input)
	}
	if err := validation.Validate(checked); err != nil {
		return errors.Wrap(err, source)
	}
	return nil
}

// Target returns the manifest inside a stack-input message.
func Target(input proto.Message) proto.Message {
	m := input.ProtoReflect()
	return m.Get(m.Descriptor().Fields().ByName("target")).Message().Interface()
}

var jsonPosition = regexp.MustCompile(`\(line \d+:\d+\): `)

func isManifest(top map[string]json.RawMessage) bool {
	for _, key := range []string{"target", "providerConfig", "provider_config"} {
		if _, ok := top[key]; ok {
			return false
		}
	}
	for _, key := range []string{"apiVersion", "api_version", "kind", "metadata", "spec"} {
		if _, ok := top[key]; ok {
			return true
		}
	}
	return false
}
