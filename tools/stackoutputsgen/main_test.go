package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	dopoolv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"google.golang.org/protobuf/reflect/protoreflect"
)

func TestGoNameWritesTheProtoNameInGoStyleWithItsInitialisms(t *testing.T) {
	tests := []struct{ name, proto, want string }{
		{name: "each word is capitalised", proto: "kubeconfig_expires_at", want: "KubeconfigExpiresAt"},
		{name: "an id is ID", proto: "default_node_pool_id", want: "DefaultNodePoolID"},
		{name: "ids are IDs", proto: "node_ids", want: "NodeIDs"},
		{name: "api, ip, dns and urn are in capitals", proto: "api_server_endpoint", want: "APIServerEndpoint"},
		{name: "ipv4 is IPv4", proto: "ipv4_address", want: "IPv4Address"},
		{name: "uuid is UUID while vpc is a word", proto: "vpc_uuid", want: "VpcUUID"},
		{name: "a word with digits is only capitalised", proto: "kubeconfig_b64", want: "KubeconfigB64"},
		{name: "a master's ip is MasterIP", proto: "master_ip", want: "MasterIP"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := goName(tt.proto); got != tt.want {
				t.Errorf("goName(%q) = %q, want %q", tt.proto, got, tt.want)
			}
		})
	}
}

func TestAnOutputOfAnotherTypeThanAStringOrAListOfStringsIsAnErrorNamingTheField(t *testing.T) {
	// A spec has fields of every kind; read as if it were a StackOutputs message.
	spec := (&dopoolv1.DigitalOceanKubernetesNodePoolSpec{}).ProtoReflect().Descriptor()
	tests := []struct {
		name, field, wantErr string
	}{
		{name: "a number", field: "node_count", wantErr: "DigitalOceanKubernetesNodePoolSpec.node_count is a int32"},
		{name: "a boolean", field: "auto_scale", wantErr: "DigitalOceanKubernetesNodePoolSpec.auto_scale is a bool"},
		{name: "a map", field: "labels", wantErr: "DigitalOceanKubernetesNodePoolSpec.labels is a map"},
		{name: "a list of messages", field: "taints", wantErr: "DigitalOceanKubernetesNodePoolSpec.taints is a repeated message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fd := spec.Fields().ByName(protoreflect.Name(tt.field))
			if fd == nil {
				t.Fatalf("the spec has no field %s", tt.field)
			}
			if _, err := outputType(fd); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("outputType(%s) error = %v, want one containing %q", tt.field, err, tt.wantErr)
			}
		})
	}
	t.Run("and generating the package of a kind with one is refused", func(t *testing.T) {
		if _, err := generate([]kind{{name: "Spec", outputs: spec}}); err == nil || !strings.Contains(err.Error(), "Spec.cluster is a message") {
			t.Errorf("generate error = %v, want one naming the spec's first field that is no string, cluster", err)
		}
	})
}

func TestTheCommittedPackageIsWhatTheMessagesGenerate(t *testing.T) {
	kinds, err := findKinds()
	if err != nil {
		t.Fatal(err)
	}
	if len(kinds) < 4 {
		t.Fatalf("found %d kinds, want the four at least", len(kinds))
	}
	want, err := generate(kinds)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", "apis", "clusterplane", "stackoutputs", "stackoutputs_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Error("apis/clusterplane/stackoutputs is stale: run make protos")
	}
}
