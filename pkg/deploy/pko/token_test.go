package pko

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
)

func TestTokenEnv(t *testing.T) {
	input := func(kind string) proto.Message {
		k, ok := registry.Kinds().ByName(kind)
		if !ok {
			t.Fatalf("no kind %s", kind)
		}
		return k.NewStackInput()
	}
	for _, tc := range []struct {
		name, kind       string
		input            proto.Message
		wantEnv, wantKey string
		wantErr          string
	}{
		{name: "a Civo kind reads CIVO_TOKEN from civo-token", kind: "CivoKubernetesNodePool",
			input: input("CivoKubernetesNodePool"), wantEnv: "CIVO_TOKEN", wantKey: "civo-token"},
		{name: "a DigitalOcean kind reads DIGITALOCEAN_TOKEN from digitalocean-token", kind: "DigitalOceanKubernetesCluster",
			input: input("DigitalOceanKubernetesCluster"), wantEnv: "DIGITALOCEAN_TOKEN", wantKey: "digitalocean-token"},
		{name: "a kind of no known cloud is an error naming it, never another cloud's token", kind: "MoonKubernetesCluster",
			input: &emptypb.Empty{}, wantErr: "kind MoonKubernetesCluster deploys to no cloud a driver knows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, key, err := tokenEnv(tc.kind, tc.input)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v (env %q, key %q), want one saying %q", err, env, key, tc.wantErr)
				}
				return
			}
			if err != nil || env != tc.wantEnv || key != tc.wantKey {
				t.Errorf("tokenEnv = %q, %q, %v; want %q, %q", env, key, err, tc.wantEnv, tc.wantKey)
			}
		})
	}
}

func TestTokenKeysNameEveryCloudsSecretKey(t *testing.T) {
	// Every driver's cloud's key, "<cloud>-token", in the drivers' order: "civo-token,
	// digitalocean-token" for the two clouds, and a cloud added to the drivers needs no line here.
	var keys []string
	for _, id := range clouds.IDs() {
		keys = append(keys, string(id)+"-token")
	}
	if got, want := TokenKeys(), strings.Join(keys, ", "); got != want {
		t.Errorf("TokenKeys() = %q, want %q", got, want)
	}
}
