package cloudapi_test

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
)

// Promise: sandbox-nothing-leaves-the-machine
// Promise: sandbox-provider-config-refused
func TestInsideTheSandboxAProviderConfigWithItsOwnTokenOrURLIsRefused(t *testing.T) {
	const (
		cfgToken = "config-token-never-shown-5e3f"
		envURL   = "http://127.0.0.1:8080"
	)
	tests := []struct {
		name       string
		token, url string
		wantErr    bool
	}{
		{name: "an empty provider config reaches the sandbox's clouds"},
		{name: "the sandbox's own token and URL handed on, as a program does to a plugin, pass",
			token: "sandbox-token", url: envURL},
		{name: "a token of its own is refused", token: cfgToken, wantErr: true},
		{name: "an API URL of its own is refused", url: "https://api.digitalocean.com", wantErr: true},
		{name: "a loopback API URL with its token is refused as well", token: cfgToken, url: "http://127.0.0.1:47999", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(cloudfacts.SandboxEnv, t.TempDir())
			for _, cloud := range []cloudfacts.Env{digitalocean.Env, civo.Env} {
				t.Setenv(cloud.TokenEnv, "sandbox-token")
				t.Setenv(cloud.URLEnv, envURL)
				token, url, err := cloud.Resolve(tt.token, tt.url)
				if !tt.wantErr {
					if err != nil || token != "sandbox-token" || url != envURL {
						t.Errorf("%s: Resolve = %q, %q, %v; want the sandbox's token and URL", cloud.Name, token, url, err)
					}
					continue
				}
				if err == nil || !strings.Contains(err.Error(), "sandbox") || !strings.Contains(err.Error(), "providerConfig") {
					t.Fatalf("%s: Resolve = %q, %q, %v; want a refusal naming providerConfig and the sandbox", cloud.Name, token, url, err)
				}
				if strings.Contains(err.Error(), cfgToken) || token != "" || url != "" {
					t.Errorf("%s: the refusal shows or returns the token: %v", cloud.Name, err)
				}
			}
		})
	}
}
