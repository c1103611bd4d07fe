package cloudfacts_test

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
)

// Promise: environment-token-only-to-its-own-api
// Promise: api-url-needs-its-own-token-and-https
func TestAnEnvironmentTokenGoesOnlyToTheCloudsOwnAPIOrTheEnvironmentsURL(t *testing.T) {
	const (
		envToken  = "env-token-never-shown-7c1a"
		cfgToken  = "config-token-never-shown-2b9d"
		envURL    = "http://127.0.0.1:8080"
		foreign   = "https://api.attacker.example"
		plainHTTP = "http://api.attacker.example"
	)
	tests := []struct {
		name               string
		env                map[string]string // token, url
		token, url         string
		wantToken, wantURL string
		wantErr            string // "" for none
	}{
		{name: "the environment's token with the cloud's own API",
			env: map[string]string{"token": envToken}, wantToken: envToken},
		{name: "the environment's token with the environment's URL",
			env: map[string]string{"token": envToken, "url": envURL}, wantToken: envToken, wantURL: envURL},
		{name: "the config's token with the config's URL",
			env: map[string]string{"token": envToken, "url": envURL}, token: cfgToken, url: foreign, wantToken: cfgToken, wantURL: foreign},
		{name: "the config's token with the environment's URL",
			env: map[string]string{"token": envToken, "url": envURL}, token: cfgToken, wantToken: cfgToken, wantURL: envURL},
		{name: "the config's token with the cloud's own API", token: cfgToken, wantToken: cfgToken},
		{name: "nothing anywhere leaves it to the provider"},
		{name: "the config's URL never gets the environment's token",
			env: map[string]string{"token": envToken}, url: foreign, wantErr: "needs its own apiToken"},
		{name: "the config's URL without any token is refused as well", url: foreign, wantErr: "needs its own apiToken"},
		{name: "the config's plain http URL is refused even with its token",
			token: cfgToken, url: plainHTTP, wantErr: "must be https"},
		{name: "the config's plain http URL on 127.0.0.1 with its token", token: cfgToken, url: "http://127.0.0.1:47999",
			wantToken: cfgToken, wantURL: "http://127.0.0.1:47999"},
		{name: "the config's loopback URL never gets the environment's token",
			env: map[string]string{"token": envToken}, url: "http://127.0.0.1:47999", wantErr: "needs its own apiToken"},
		{name: "a URL without a scheme is refused", token: cfgToken, url: "api.example.com", wantErr: "must be https"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, cloud := range []cloudfacts.Env{digitalocean.Env, civo.Env} {
				t.Setenv(cloud.TokenEnv, tt.env["token"])
				t.Setenv(cloud.URLEnv, tt.env["url"])
				token, url, err := cloud.Resolve(tt.token, tt.url)
				if tt.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "providerConfig.apiUrl") {
						t.Fatalf("%s: Resolve = %v, want an error naming providerConfig.apiUrl that says %q", cloud.Name, err, tt.wantErr)
					}
					if token != "" || url != "" {
						t.Errorf("%s: a refusal still returned a token or URL", cloud.Name)
					}
					for _, secret := range []string{envToken, cfgToken, tt.url} {
						if strings.Contains(err.Error(), secret) {
							t.Errorf("%s: the error shows a token or the URL: %v", cloud.Name, err)
						}
					}
					if tt.wantErr == "needs its own apiToken" && !strings.Contains(err.Error(), cloud.TokenEnv) {
						t.Errorf("%s: the error does not name %s: %v", cloud.Name, cloud.TokenEnv, err)
					}
					continue
				}
				if err != nil || token != tt.wantToken || url != tt.wantURL {
					t.Errorf("%s: Resolve = %q, %q, %v; want %q, %q", cloud.Name, token, url, err, tt.wantToken, tt.wantURL)
				}
			}
		})
	}
}

func TestOnlyHTTPSOrALoopbackHostIsSecure(t *testing.T) {
	tests := []struct {
		url  string
		want bool
	}{
		{"https://api.digitalocean.com", true},
		{"HTTPS://api.civo.com/", true},
		{"https://203.0.113.7:8443/v2", true},
		{"http://127.0.0.1:47999", true},
		{"http://127.8.9.10", true},
		{"http://[::1]:8080/", true},
		{"http://localhost:8080", true},
		{"http://LOCALHOST", true},
		{"http://api.digitalocean.com", false},
		{"http://10.0.0.1", false},
		{"http://[::2]", false},
		{"http://localhost.attacker.example", false},
		{"http://127.0.0.1.nip.io", false},
		{"ftp://127.0.0.1", false},
		{"file:///etc/passwd", false},
		{"api.digitalocean.com", false},
		{"", false},
		{"https://", false},
	}
	for _, tt := range tests {
		if got := cloudfacts.SecureURL(tt.url); got != tt.want {
			t.Errorf("SecureURL(%q) = %t, want %t", tt.url, got, tt.want)
		}
	}
}
