package serve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/reconcile"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// The name no caller may report under is the one serve's workers report under.
func TestTheReservedControllerNameIsTheWorkersOwn(t *testing.T) {
	if auth.ReservedController != reconcile.Controller {
		t.Errorf("auth.ReservedController is %q, the workers report as %q", auth.ReservedController, reconcile.Controller)
	}
}

// A status is written by whom it names: a controller token reports under its own name only,
// nobody under serve's own, and the report's generation and name are checked.
// Promise: api-status-report-refused
func TestAStatusIsWrittenOnlyByTheControllerItNames(t *testing.T) {
	onEachDatabase(t, 0, func(t *testing.T, s *service) {
		code, cluster := s.call(auth.Editor, "POST", "/api/v1/clusters", doCluster)
		if code != http.StatusCreated {
			t.Fatalf("create cluster: %d %v", code, cluster)
		}
		id := cluster["id"].(string)
		path := "/api/v1/clusters/" + id + "/status"
		// The cluster failed to deploy, as serve's workers say.
		reportAsServe(t, s.url, store.Cluster, id, 1, "False")

		// A controller token made before tokens named their controller: its row has the
		// controller role and no controller, as the migration leaves it.
		old, rec, err := auth.NewToken("old-controller", auth.Editor)
		if err != nil {
			t.Fatal(err)
		}
		rec.Role = auth.Controller
		if err := storeOf(t, s.url).Tokens().AddToken(context.Background(), rec); err != nil {
			t.Fatal(err)
		}

		report := func(name string, generation int) string {
			quoted, err := json.Marshal(name) // JSON's escapes, which Go's %q does not always write
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprintf(`{"controller_name": %s, "observed_generation": %d, "conditions": [{"type": "Ready", "status": "True", "reason": "Fine"}]}`, quoted, generation)
		}
		tests := []struct {
			name      string
			role      auth.Role
			token     string // instead of role's token
			body      string
			want      int
			wantCode  string
			wantField string // the problem's field of a 400
			wantText  string // in the error's message
		}{
			{name: "a controller token may not report as serve's workers", role: auth.Controller, body: report("clusterplane", 1),
				want: 403, wantCode: "FORBIDDEN", wantText: "reserved for serve's own workers"},
			{name: "a controller token may not report as serve's workers in another case", role: auth.Controller, body: report("ClusterPlane", 1),
				want: 403, wantCode: "FORBIDDEN", wantText: "reserved"},
			{name: "an admin token may not report as serve's workers", role: auth.Admin, body: report("clusterplane", 1),
				want: 403, wantCode: "FORBIDDEN"},
			{name: "a controller token may not report as another controller", role: auth.Controller, body: report("gpu-controller", 1),
				want: 403, wantCode: "FORBIDDEN", wantText: `as controller "test-controller" only`},
			{name: "a controller token made before tokens named their controller may report nothing", token: old, body: report("old-controller", 1),
				want: 403, wantCode: "FORBIDDEN", wantText: "made before controller tokens named their controller"},
			{name: "a negative observed generation is refused", role: auth.Controller, body: report(testController, -5),
				want: 400, wantCode: "VALIDATION_ERROR", wantField: "observed_generation"},
			{name: "an observed generation of zero is refused", role: auth.Controller, body: report(testController, 0),
				want: 400, wantCode: "VALIDATION_ERROR", wantField: "observed_generation"},
			{name: "an observed generation above the object's is refused", role: auth.Controller, body: report(testController, 2),
				want: 400, wantCode: "VALIDATION_ERROR", wantField: "observed_generation", wantText: "generation 1"},
			{name: "a controller name with a NUL is refused", role: auth.Controller, body: report("test\x00controller", 1),
				want: 400, wantCode: "VALIDATION_ERROR", wantField: "controller_name"},
			{name: "a controller name with a newline is refused", role: auth.Controller, body: report("test-controller\nclusterplane", 1),
				want: 400, wantCode: "VALIDATION_ERROR", wantField: "controller_name"},
			{name: "a controller name longer than the bound is refused", role: auth.Controller, body: report(strings.Repeat("c", auth.MaxControllerName+1), 1),
				want: 400, wantCode: "VALIDATION_ERROR", wantField: "controller_name"},
			{name: "a controller token reports under its own name", role: auth.Controller, body: report(testController, 1),
				want: 200},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var headers []string
				if tt.token != "" {
					headers = []string{"Authorization", "Bearer " + tt.token}
				}
				code, out := s.call(tt.role, "PUT", path, tt.body, headers...)
				if code != tt.want || errorCode(out) != tt.wantCode {
					t.Fatalf("got %d %q, want %d %q: %v", code, errorCode(out), tt.want, tt.wantCode, out)
				}
				e, _ := out["error"].(map[string]any)
				if tt.wantField != "" {
					problems := list(e["problems"])
					if len(problems) != 1 || problems[0]["field"] != tt.wantField {
						t.Errorf("problems %v, want one naming %s", problems, tt.wantField)
					}
				}
				if text := fmt.Sprint(e["message"], " ", e["details"]); !strings.Contains(text, tt.wantText) {
					t.Errorf("error %q does not say %q", text, tt.wantText)
				}
			})
		}

		t.Run("the cluster that failed is still Failed and not listed Ready", func(t *testing.T) {
			if _, obj := s.call(auth.Viewer, "GET", "/api/v1/clusters/"+id, ""); obj["phase"] != "Failed" || obj["health"] != "Unknown" {
				t.Errorf("phase %v, health %v; want Failed, Unknown", obj["phase"], obj["health"])
			}
			if _, out := s.call(auth.Viewer, "GET", "/api/v1/clusters?status=Ready", ""); out["total"] != float64(0) {
				t.Errorf("status=Ready lists %v", out)
			}
			_, st := s.call(auth.Viewer, "GET", path, "")
			for _, cs := range list(st["controller_status"]) {
				if cs["controller_name"] == reconcile.Controller && condition(cs, "Ready") != "False" {
					t.Errorf("serve's own report was overwritten: %v", cs)
				}
			}
		})
	})
}
