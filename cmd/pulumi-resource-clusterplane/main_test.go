package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/release"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/internal/testing/fakeengine"
	"github.com/clusterplane/clusterplane/pkg/pulumi/componentprovider"
	"github.com/clusterplane/clusterplane/pkg/pulumi/pulumischema"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/emptypb"
)

func TestGetSchemaServesTheSchemaGeneratedFromTheProtos(t *testing.T) {
	want, err := pulumischema.Generate(registry.Kinds().Schema())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(schema, want) {
		t.Fatal("schema.json differs from the schema the protos give; run `make protos`")
	}
	e := fakeengine.Start(t, fakeengine.Options{})
	addr := fakeengine.Serve(t, func(s *grpc.Server) {
		pulumirpc.RegisterResourceProviderServer(s, componentprovider.New(e.Conn, release.Version(), schema, registry.Kinds().Components()))
	})
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := pulumirpc.NewResourceProviderClient(conn)
	resp, err := client.GetSchema(context.Background(), &pulumirpc.GetSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetSchema() != string(want) {
		t.Error("GetSchema serves another schema than the one the protos give")
	}
	info, err := client.GetPluginInfo(context.Background(), &emptypb.Empty{})
	if err != nil || info.GetVersion() != release.Version() {
		t.Errorf("GetPluginInfo = %v, %v; want version %s", info, err, release.Version())
	}
}
