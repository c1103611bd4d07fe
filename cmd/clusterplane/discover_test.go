package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/internal/seed"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

// Promise: discover-keeps-existing-files
func TestDiscoverExitsAsTheTableSays(t *testing.T) {
	const token = "dop_v1_discover-command-test"
	do := fakedo.New(t, token)
	if _, _, err := fakedo.Seed(context.Background(), seed.Client{URL: do.URL(), Token: token}, seed.Cluster{Name: "web", Region: "fra1"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tests := []struct {
		name   string
		env    map[string]string
		args   []string
		code   int
		saying string
	}{
		{name: "an unknown cloud is a usage error", args: []string{"discover", "aws", "--dir", dir}, code: exitcode.Usage, saying: "civo or digitalocean"},
		{name: "no folder is a usage error", env: map[string]string{"DIGITALOCEAN_TOKEN": token}, args: []string{"discover", "digitalocean"}, code: exitcode.Usage, saying: "--dir"},
		{name: "no token is invalid input, naming the variable", env: map[string]string{"DIGITALOCEAN_TOKEN": ""}, args: []string{"discover", "digitalocean", "--dir", dir}, code: exitcode.Invalid, saying: "DIGITALOCEAN_TOKEN"},
		{name: "a token the cloud refuses is invalid input, and not printed", env: map[string]string{"DIGITALOCEAN_TOKEN": "wrong-token-value"}, args: []string{"discover", "digitalocean", "--dir", dir}, code: exitcode.Invalid, saying: "HTTP 401"},
		{name: "an account is written", env: map[string]string{"DIGITALOCEAN_TOKEN": token}, args: []string{"discover", "digitalocean", "--dir", dir}, code: exitcode.OK, saying: "1 cluster and 0 more node pools of DigitalOcean: 1 file in " + dir + " (1 request)"},
		{name: "existing files are not overwritten", env: map[string]string{"DIGITALOCEAN_TOKEN": token}, args: []string{"discover", "digitalocean", "--dir", dir}, code: exitcode.Blocked, saying: "web.yaml exists; nothing written (--force overwrites it)"},
		{name: "unless --force", env: map[string]string{"DIGITALOCEAN_TOKEN": token}, args: []string{"discover", "digitalocean", "--dir", dir, "--force"}, code: exitcode.OK, saying: "web.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// run empties the environment's credentials; this test sets its own.
			t.Setenv("DIGITALOCEAN_API_URL", do.URL())
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			code := newApp(registry.Kinds(), strings.NewReader(""), &stdout, &stderr).run(tt.args)
			r := result{code, stdout.String(), stderr.String()}
			if r.code != tt.code || !strings.Contains(r.stdout+r.stderr, tt.saying) {
				t.Errorf("exit %d, want %d saying %q:\n%s%s", r.code, tt.code, tt.saying, r.stdout, r.stderr)
			}
			for _, secret := range []string{token, "wrong-token-value"} {
				if strings.Contains(r.stdout+r.stderr, secret) {
					t.Errorf("printed %q", secret)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "web.yaml")); err != nil {
		t.Error(err)
	}

	// A file of the same name from the other cloud: the clash says so.
	other := t.TempDir()
	civo := "apiVersion: civo.clusterplane.dev/v1\nkind: CivoKubernetesCluster\nmetadata:\n  name: web\n"
	if err := os.WriteFile(filepath.Join(other, "web.yaml"), []byte(civo), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DIGITALOCEAN_API_URL", do.URL())
	t.Setenv("DIGITALOCEAN_TOKEN", token)
	var stdout, stderr bytes.Buffer
	code := newApp(registry.Kinds(), strings.NewReader(""), &stdout, &stderr).run([]string{"discover", "digitalocean", "--dir", other})
	if want := "it holds a CivoKubernetesCluster; the file discovered is a DigitalOceanKubernetesCluster"; code != exitcode.Blocked || !strings.Contains(stderr.String(), want) {
		t.Errorf("exit %d, want %d saying %q:\n%s", code, exitcode.Blocked, want, stderr.String())
	}
}

func TestDiscoverSaysHowManyClustersAndPoolsItLeftOutAsClusterplanes(t *testing.T) {
	const token = "dop_v1_discover-managed-test"
	do := fakedo.New(t, token)
	managed := seed.Cluster{Name: "dev", Region: "fra1", Tags: []string{"resource-kind:DigitalOceanKubernetesCluster", "resource-name:dev"}}
	// A cluster made elsewhere holding a pool clusterplane deployed as a stack of its own.
	console := seed.Cluster{Name: "shop", Region: "fra1", Pools: []seed.Pool{{Name: "shop-default-pool"},
		{Name: "batch", Tags: []string{"resource-kind:DigitalOceanKubernetesNodePool", "resource-name:batch"}}}}
	for _, c := range []seed.Cluster{managed, console} {
		if _, _, err := fakedo.Seed(context.Background(), seed.Client{URL: do.URL(), Token: token}, c); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("DIGITALOCEAN_API_URL", do.URL())
	t.Setenv("DIGITALOCEAN_TOKEN", token)
	for _, tt := range []struct {
		args          []string
		saying, files string
	}{
		{args: nil, saying: "note: 1 cluster clusterplane deployed (tagged resource-kind:) left out", files: "1 file"},
		{args: nil, saying: "note: 1 node pool left out: clusterplane deployed it as a stack of its own (tagged resource-kind:), which holds it (--include-managed writes it)", files: "1 file"},
		{args: []string{"--include-managed"}, files: "3 files"},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"discover", "digitalocean", "--dir", t.TempDir()}, tt.args...)
		code := newApp(registry.Kinds(), strings.NewReader(""), &stdout, &stderr).run(args)
		if code != exitcode.OK || !strings.Contains(stderr.String(), tt.saying) || !strings.Contains(stdout.String(), tt.files) {
			t.Errorf("%v: exit %d, want 0 saying %q and %q:\n%s%s", args, code, tt.saying, tt.files, stdout.String(), stderr.String())
		}
	}
}
