package digitaloceanprovider_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	"github.com/clusterplane/clusterplane/internal/fakedo"
	"github.com/clusterplane/clusterplane/pkg/provider"
	"github.com/clusterplane/clusterplane/pkg/provider/digitaloceanprovider"
	"github.com/digitalocean/godo"
)

func TestHasRegistryReadsDigitalOceansAnswerAndNeverGuesses(t *testing.T) {
	const token = "dop_v1_registry_test_token"
	tests := []struct {
		name   string
		status int
		token  string
		want   digitaloceanprovider.Registry
	}{
		{"an account with a registry has one", http.StatusOK, token, digitaloceanprovider.RegistryFound},
		{"an account with several registries has one (412 asks for the newer API)", http.StatusPreconditionFailed, token, digitaloceanprovider.RegistryFound},
		{"an account without a registry has none", http.StatusNotFound, token, digitaloceanprovider.RegistryMissing},
		{"a server error decides nothing", http.StatusInternalServerError, token, digitaloceanprovider.RegistryUnknown},
		{"a refused token decides nothing", http.StatusUnauthorized, token, digitaloceanprovider.RegistryUnknown},
		{"without a token nothing is asked", http.StatusNotFound, "", digitaloceanprovider.RegistryUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(provider.DigitalOceanTokenEnv, "")
			asked := false
			server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				asked = true
				if r.URL.Path != "/v2/registry" || r.Header.Get("Authorization") != "Bearer "+token {
					t.Errorf("request %s with %q, want GET /v2/registry with the token", r.URL.Path, r.Header.Get("Authorization"))
				}
				w.WriteHeader(tt.status)
			}))
			defer server.Close()
			cfg := &digitaloceanv1.DigitalOceanProviderConfig{ApiToken: tt.token, ApiUrl: server.URL + "/"}
			if got := digitaloceanprovider.HasRegistry(context.Background(), cfg); got != tt.want {
				t.Errorf("HasRegistry = %v, want %v", got, tt.want)
			}
			if asked != (tt.token != "") {
				t.Errorf("asked the API: %t, want %t", asked, tt.token != "")
			}
		})
	}
}

func TestHasRegistryOfAnUnreachableAPIDecidesNothing(t *testing.T) {
	server := httptest.NewServer(http.NotFoundHandler())
	url := server.URL
	server.Close()
	cfg := &digitaloceanv1.DigitalOceanProviderConfig{ApiToken: "t", ApiUrl: url}
	if got := digitaloceanprovider.HasRegistry(context.Background(), cfg); got != digitaloceanprovider.RegistryUnknown {
		t.Errorf("HasRegistry = %v, want unknown", got)
	}
}

func TestLiveVersionFindsAClusterOnAnyPageOfTheAccountsClusters(t *testing.T) {
	do := fakedo.New(t, "tok")
	for i := range 230 {
		do.SeedCluster(godo.KubernetesCluster{Name: fmt.Sprintf("c%03d", i), RegionSlug: "fra1", VersionSlug: "1.31.1-do.5",
			NodePools: []*godo.KubernetesNodePool{{Name: "default", Size: "s-1vcpu-2gb", Count: 1}}})
	}
	do.EditCluster(mustFind(t, do, "c225").ID, func(c *godo.KubernetesCluster) { c.VersionSlug = "1.31.9-do.2" })
	cfg := &digitaloceanv1.DigitalOceanProviderConfig{ApiToken: "tok", ApiUrl: do.URL()}
	tests := []struct{ name, want string }{
		{"c000", "1.31.1-do.5"},
		{"c225", "1.31.9-do.2"}, // on the second page of 200
		{"new", ""},
	}
	for _, tt := range tests {
		got, err := digitaloceanprovider.LiveVersion(context.Background(), cfg, tt.name)
		if err != nil || got != tt.want {
			t.Errorf("LiveVersion(%s) = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	bad := &digitaloceanv1.DigitalOceanProviderConfig{ApiToken: "wrong", ApiUrl: do.URL()}
	if _, err := digitaloceanprovider.LiveVersion(context.Background(), bad, "c000"); err == nil ||
		!strings.Contains(err.Error(), "HTTP 401") || strings.Contains(err.Error(), "wrong") {
		t.Errorf("a bad token: %v, want HTTP 401 without the token", err)
	}
}

func mustFind(t *testing.T, do *fakedo.DO, name string) godo.KubernetesCluster {
	t.Helper()
	c, ok := do.ClusterNamed(name)
	if !ok {
		t.Fatalf("no cluster %s", name)
	}
	return c
}
