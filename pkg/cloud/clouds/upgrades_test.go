package clouds_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
)

// The plan scans a cluster through the kubeconfig its cloud gives; one a cluster has not got yet
// is refused by name, not scanned as an empty config.
func TestThePlanReadsEachCloudsKubeconfigAndRefusesAnEmptyOne(t *testing.T) {
	const config = "apiVersion: v1\nkind: Config\n"
	civoCloud := func(base string) kubeconfigs { return civo.NewUpgrades(base, "civo-token", "lon1") }
	do := func(base string) kubeconfigs { return digitalocean.NewUpgrades(base, "do-token") }
	tests := []struct {
		name    string
		cloud   func(base string) kubeconfigs
		path    string // the path the cloud answers, with the query it must carry
		body    string
		wantErr string // "" for config
	}{
		{"Civo's cluster gives its kubeconfig", civoCloud, "/v2/kubernetes/clusters/c1?region=lon1",
			fmt.Sprintf(`{"id":"c1","version":"1.30.5-k3s1","kubeconfig":%q}`, config), ""},
		{"a Civo cluster without a kubeconfig is refused", civoCloud, "/v2/kubernetes/clusters/c1?region=lon1",
			`{"id":"c1","version":"1.30.5-k3s1","kubeconfig":""}`, "Civo cluster c1 reports no kubeconfig (is it still building?)"},
		{"DigitalOcean's kubeconfig endpoint gives it", do, "/v2/kubernetes/clusters/c1/kubeconfig", config, ""},
		{"an empty kubeconfig from DigitalOcean is refused", do, "/v2/kubernetes/clusters/c1/kubeconfig", "",
			"DigitalOcean cluster c1 reports no kubeconfig"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.RequestURI() != tt.path {
					t.Errorf("asked %s, want %s", r.URL.RequestURI(), tt.path)
					w.WriteHeader(http.StatusNotFound)
					return
				}
				fmt.Fprint(w, tt.body)
			}))
			defer server.Close()
			got, err := tt.cloud(server.URL).Kubeconfig(context.Background(), upgrade.Live{ID: "c1"})
			if tt.wantErr == "" {
				if err != nil || string(got) != config {
					t.Errorf("kubeconfig of %d bytes (%v), want the %d the cloud gave", len(got), err, len(config))
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr || got != nil {
				t.Errorf("kubeconfig of %d bytes and error %v, want none and %s", len(got), err, tt.wantErr)
			}
		})
	}
}

// kubeconfigs read a cluster's kubeconfig from its cloud, as a driver's Upgrades does before it
// lists the cluster's objects.
type kubeconfigs interface {
	Kubeconfig(ctx context.Context, live upgrade.Live) ([]byte, error)
}
