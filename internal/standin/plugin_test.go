package standin

import (
	"bufio"
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/emptypb"
)

// buildPlugin builds the plugin binary of pkg into a temporary directory.
func buildPlugin(t *testing.T, pkg string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the plugin binaries: not in -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "pulumi-resource-"+pkg)
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/pulumi-resource-"+pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("build the %s plugin: %v\n%s", pkg, err, out)
	}
	return bin
}

func TestThePluginBinariesServeTheProtocolOnLocalhost(t *testing.T) {
	for _, pkg := range []string{"digitalocean", "civo"} {
		t.Run(pkg, func(t *testing.T) {
			bin := buildPlugin(t, pkg)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			// Without a host address the plugin starts in attach mode: it serves on 127.0.0.1 and
			// prints its port, as it does for the engine.
			cmd := exec.CommandContext(ctx, bin)
			cmd.Env = append(cmd.Environ(), CloudEnv+"="+t.TempDir())
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
			port, err := bufio.NewReader(stdout).ReadString('\n')
			if err != nil {
				t.Fatalf("read the port: %v", err)
			}
			conn, err := grpc.NewClient("127.0.0.1:"+strings.TrimSpace(port), grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			client := pulumirpc.NewResourceProviderClient(conn)
			info, err := client.GetPluginInfo(ctx, &emptypb.Empty{})
			if err != nil {
				t.Fatal(err)
			}
			if info.GetVersion() != Versions[pkg] {
				t.Errorf("version = %q, want %q", info.GetVersion(), Versions[pkg])
			}
			schema, err := client.GetSchema(ctx, &pulumirpc.GetSchemaRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(schema.GetSchema(), `"name":"`+pkg+`"`) {
				t.Errorf("schema = %s", schema.GetSchema())
			}
		})
	}
}

func TestThePluginWithoutACloudDirectoryFailsNamingTheVariable(t *testing.T) {
	bin := buildPlugin(t, "civo")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(cmd.Environ(), CloudEnv+"=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil {
		t.Fatal("the plugin started without a cloud directory")
	}
	if !strings.Contains(stderr.String(), CloudEnv) {
		t.Errorf("stderr = %q, want it to name %s", stderr.String(), CloudEnv)
	}
}
