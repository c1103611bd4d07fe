// Package programinput is where a kind's Pulumi program finds its stack input: the stack's config
// first, then the files pkg/manifest/stackinput reads. Reading the config needs the Pulumi SDK,
// which links an HTTP client; the parsing and the checks stay in pkg/manifest, which links none.
package programinput

import (
	"os"

	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
	"google.golang.org/protobuf/proto"
)

// ConfigKey is the Pulumi config key holding the stack input as YAML or JSON text.
const ConfigKey = "stackInput"

// Load fills input, a stack-input message, from the Pulumi config key stackInput, else the file
// named by STACK_INPUT_FILE, else the first of stackinput.DefaultFiles that exists, and validates
// it.
func Load(ctx *pulumi.Context, input proto.Message) error {
	if text := config.Get(ctx, ConfigKey); text != "" {
		return stackinput.Parse([]byte(text), "config "+ConfigKey, input)
	}
	if path := os.Getenv(stackinput.FileEnv); path != "" {
		return stackinput.LoadFile(path, input)
	}
	for _, path := range stackinput.DefaultFiles {
		if _, err := os.Stat(path); err == nil {
			return stackinput.LoadFile(path, input)
		}
	}
	return errors.Errorf("no stack input: set the Pulumi config key %q, set %s, or put one of %v in the working directory",
		ConfigKey, stackinput.FileEnv, stackinput.DefaultFiles)
}
