package cloudapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
)

func TestACloudIsAskedWhetherItThrottlesAtItsOwnProbeWithTheToken(t *testing.T) {
	for _, cloud := range []cloudfacts.Env{digitalocean.Env, civo.Env} {
		t.Run(cloud.Name, func(t *testing.T) {
			var asked string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				asked = r.Method + " " + r.URL.Path + " " + r.Header.Get("Authorization")
				w.Header().Set("Retry-After", "7")
				w.WriteHeader(http.StatusTooManyRequests)
			}))
			defer srv.Close()
			if got := cloudapi.Throttled(context.Background(), cloud, srv.URL, "tok"); got != 7*time.Second {
				t.Errorf("Throttled = %v, want the 7s the 429 asks for", got)
			}
			if want := "GET " + cloud.Probe + " Bearer tok"; asked != want {
				t.Errorf("asked %q, want %q", asked, want)
			}
		})
	}
}
