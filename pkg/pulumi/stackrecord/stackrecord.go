// Package stackrecord is what every stack records besides its kind's outputs, however it is
// deployed (clusterplane, `pulumi up` in a program folder, the Pulumi Kubernetes Operator): the
// generation of the manifest it deployed, the manifest itself, and the build of clusterplane
// that deployed it. clusterplane reads them back to
// tell a changed manifest (status) and to refuse what the providers cannot carry out (up).
package stackrecord

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime/debug"
	"sync"

	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/clusterplane/clusterplane/pkg/release"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

const (
	// GenerationOutput is the generation of the manifest the last update deployed.
	GenerationOutput = "clusterplane_generation"
	// ManifestOutput is the manifest the last update deployed: the target, never the provider
	// config, which holds the token.
	ManifestOutput = "clusterplane_manifest"
	// ProgramOutput is the build of clusterplane whose module deployed the stack (Program): a
	// stack is known unchanged only when the manifest and the module that turns it into
	// resources are both the ones it last deployed.
	ProgramOutput = "clusterplane_program"
)

// Program names this build of clusterplane's modules (computed once a process): the release's
// version; else, for a build from a checkout, the commit it was built from when Go recorded it
// and nothing was changed, or else a digest of the executable itself. "" when none can be read.
// Another program deploying the same manifest (a program folder's own build, the plugin of a
// checkout) names another build: a stack it deployed is never taken for unchanged by this one.
var Program = sync.OnceValue(func() string {
	if v := release.Version(); v != "0.0.0" {
		return v
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		revision, modified := "", false
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if revision != "" && !modified {
			return "0.0.0-" + revision
		}
	}
	path, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return "0.0.0+" + hex.EncodeToString(h.Sum(nil)[:8])
})

// Generation identifies a manifest's content: the first 12 hex digits of the SHA-256 of its
// target (the manifest, without provider credentials) in deterministic protobuf form.
func Generation(input proto.Message) string {
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(apikinds.Target(input))
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:6])
}

// Manifest is the stack input's target as JSON.
func Manifest(input proto.Message) (string, error) {
	data, err := protojson.MarshalOptions{UseProtoNames: false}.Marshal(apikinds.Target(input))
	return string(data), err
}

// Export records both as the stack's outputs.
func Export(ctx *pulumi.Context, input proto.Message) {
	ctx.Export(GenerationOutput, pulumi.String(Generation(input)))
	if manifest, err := Manifest(input); err == nil {
		ctx.Export(ManifestOutput, pulumi.String(manifest))
	}
	if program := Program(); program != "" {
		ctx.Export(ProgramOutput, pulumi.String(program))
	}
}
