package kubeconfig_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/cloud/kubeconfig"
)

const (
	token = "SENTINEL-TOKEN-kubeconfig"
	// secret stands for the kubeconfig's credentials: no error may quote it.
	secret  = "client-key-data: SENTINEL-KEY"
	config  = "apiVersion: v1\nkind: Config\nusers:\n- user:\n    " + secret + "\n"
	cluster = "c0ffee00-cluster"
)

// answer is what the test's API answers to the one path it serves.
type answer struct {
	status int
	body   string
}

// get is a Get through cloudapi, the client upgrade plan reads with, to a loopback API that
// answers path with a and any other path 404; it records the paths asked.
func get(t *testing.T, path string, a answer, asked *[]string) kubeconfig.Get {
	t.Helper()
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*asked = append(*asked, r.URL.Path)
		if r.URL.Path != path {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"message":"no such path"}`)
			return
		}
		w.WriteHeader(a.status)
		fmt.Fprint(w, a.body)
	}))
	t.Cleanup(server.Close)
	api := cloudapi.New(server.URL, cloudapi.Bearer(token), cloudapi.Options{})
	return func(ctx context.Context, path string) ([]byte, error) {
		var data []byte
		err := api.Do(ctx, http.MethodGet, path, nil, &data)
		return data, err
	}
}

func TestEachCloudsKubeconfigIsReadFromItsPathAndRefusedWhenTheAnswerHasNone(t *testing.T) {
	tests := []struct {
		name    string
		read    func(context.Context, kubeconfig.Get, string) ([]byte, error)
		path    string
		answer  answer
		wantErr string // "" for the kubeconfig config
	}{
		{"a Civo cluster with a kubeconfig gives it", civo.ReadKubeconfig, "/v2/kubernetes/clusters/" + cluster,
			answer{200, fmt.Sprintf(`{"id":%q,"name":"dev","kubeconfig":%q}`, cluster, config)}, ""},
		{"a Civo cluster still building, its kubeconfig empty, is refused", civo.ReadKubeconfig, "/v2/kubernetes/clusters/" + cluster,
			answer{200, fmt.Sprintf(`{"id":%q,"name":"dev","kubeconfig":""}`, cluster)},
			"Civo cluster " + cluster + " reports no kubeconfig (is it still building?)"},
		{"a Civo cluster without a kubeconfig field is refused", civo.ReadKubeconfig, "/v2/kubernetes/clusters/" + cluster,
			answer{200, fmt.Sprintf(`{"id":%q}`, cluster)},
			"Civo cluster " + cluster + " reports no kubeconfig (is it still building?)"},
		{"a Civo cluster that is not there is Civo's 404, named", civo.ReadKubeconfig, "/v2/kubernetes/clusters/" + cluster,
			answer{404, `{"code":"database_kubernetes_cluster_not_found","reason":"The requested cluster does not exist"}`},
			"read Civo cluster " + cluster + ": GET /v2/kubernetes/clusters/" + cluster + ": HTTP 404 The requested cluster does not exist"},
		{"a Civo answer that is not JSON is refused without quoting it", civo.ReadKubeconfig, "/v2/kubernetes/clusters/" + cluster,
			answer{200, config},
			"read Civo cluster " + cluster + ": its answer is not a cluster"},
		{"a DigitalOcean cluster's kubeconfig is its endpoint's body", digitalocean.ReadKubeconfig, "/v2/kubernetes/clusters/" + cluster + "/kubeconfig",
			answer{200, config}, ""},
		{"an empty DigitalOcean kubeconfig is refused", digitalocean.ReadKubeconfig, "/v2/kubernetes/clusters/" + cluster + "/kubeconfig",
			answer{200, " \n"},
			"DigitalOcean cluster " + cluster + " reports no kubeconfig"},
		{"a DigitalOcean cluster that is not there is DigitalOcean's 404, named", digitalocean.ReadKubeconfig, "/v2/kubernetes/clusters/" + cluster + "/kubeconfig",
			answer{404, `{"id":"not_found","message":"The resource you were accessing could not be found."}`},
			"read the kubeconfig of DigitalOcean cluster " + cluster + ": GET /v2/kubernetes/clusters/" + cluster + "/kubeconfig: HTTP 404 The resource you were accessing could not be found."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			got, err := tt.read(context.Background(), get(t, tt.path, tt.answer, &asked), cluster)
			if len(asked) != 1 || asked[0] != tt.path {
				t.Errorf("the API was asked %q, want %s once", asked, tt.path)
			}
			if tt.wantErr == "" {
				if err != nil || string(got) != config {
					t.Errorf("kubeconfig of %d bytes (%v), want the %d the cloud gave", len(got), err, len(config))
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("error %v, want %s", err, tt.wantErr)
			}
			if got != nil {
				t.Errorf("a kubeconfig of %d bytes with the error, want none", len(got))
			}
			for _, s := range []string{secret, "SENTINEL-KEY", token} {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error %q quotes %q", err, s)
				}
			}
		})
	}
}
