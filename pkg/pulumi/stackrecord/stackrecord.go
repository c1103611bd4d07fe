// Package stackrecord is what every stack records besides its kind's outputs, however it is
// deployed (clusterplane, `pulumi up` in a program folder, the Pulumi Kubernetes Operator): the
// generation of the manifest it deployed, and the manifest itself. clusterplane reads them back to
// tell a changed manifest (status) and to refuse what the providers cannot carry out (up).
package stackrecord

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
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
)

// Generation identifies a manifest's content: the first 12 hex digits of the SHA-256 of its
// target (the manifest, without provider credentials) in deterministic protobuf form.
func Generation(input proto.Message) string {
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(stackinput.Target(input))
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:6])
}

// Manifest is the stack input's target as JSON.
func Manifest(input proto.Message) (string, error) {
	data, err := protojson.MarshalOptions{UseProtoNames: false}.Marshal(stackinput.Target(input))
	return string(data), err
}

// Export records both as the stack's outputs.
func Export(ctx *pulumi.Context, input proto.Message) {
	ctx.Export(GenerationOutput, pulumi.String(Generation(input)))
	if manifest, err := Manifest(input); err == nil {
		ctx.Export(ManifestOutput, pulumi.String(manifest))
	}
}
