// Package kinds lists the API's kinds by their stack-input messages, for the tools that serve
// every kind without deploying any (the JSON Schema generator, their tests). It imports only the
// generated API packages, never a cloud SDK.
package kinds

import (
	civocluster "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	civopool "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	docluster "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	dopool "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// StackInputs returns the stack-input message of every kind, in the order of the README's table.
func StackInputs() []protoreflect.MessageDescriptor {
	return []protoreflect.MessageDescriptor{
		(&civocluster.CivoKubernetesClusterStackInput{}).ProtoReflect().Descriptor(),
		(&civopool.CivoKubernetesNodePoolStackInput{}).ProtoReflect().Descriptor(),
		(&docluster.DigitalOceanKubernetesClusterStackInput{}).ProtoReflect().Descriptor(),
		(&dopool.DigitalOceanKubernetesNodePoolStackInput{}).ProtoReflect().Descriptor(),
	}
}

// Manifest returns the manifest message a stack input deploys: its target.
func Manifest(stackInput protoreflect.MessageDescriptor) protoreflect.MessageDescriptor {
	return stackInput.Fields().ByName("target").Message()
}
