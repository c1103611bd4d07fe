package serve_test

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/serve/api"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
)

// answer is a response as the client sees it: its status, headers and the raw body.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// send sends a request as role ("" for none), with headers as name, value pairs, and does not
// follow redirects: a redirect is an answer too.
func (s *service) send(role auth.Role, method, path, body string, headers ...string) answer {
	s.t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	if role != "" {
		req.Header.Set("Authorization", "Bearer "+s.tokens[role])
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: data}
}

// apiError is the error body docs/api.md describes, read strictly: an answer that is not that
// shape does not decode.
type apiError struct {
	Error struct {
		Code     string `json:"code"`
		Message  string `json:"message"`
		Details  string `json:"details"`
		Problems []struct {
			Field   string `json:"field"`
			Rule    string `json:"rule"`
			Message string `json:"message"`
		} `json:"problems"`
	} `json:"error"`
}

// errorBody checks that a is the API's JSON error body and decodes it.
func errorBody(t *testing.T, a answer) apiError {
	t.Helper()
	var e apiError
	if mt, _, _ := mime.ParseMediaType(a.header.Get("Content-Type")); mt != "application/json" {
		t.Fatalf("Content-Type %q, want application/json: %s", a.header.Get("Content-Type"), a.body)
	}
	dec := json.NewDecoder(strings.NewReader(string(a.body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		t.Fatalf("not the API's error body (%v): %s", err, a.body)
	}
	if e.Error.Code == "" || e.Error.Message == "" {
		t.Fatalf("an error without a code or a message: %s", a.body)
	}
	return e
}

// Promise: api-if-match-weak-etag-never-matches
// Promise: api-precondition-failed
// Promise: api-every-answer-json
// Promise: api-unclean-path-refused-not-redirected
// Promise: api-duplicate-key-refused
func TestEveryAnswerOutsideTheRoutesIsTheAPIsJSONError(t *testing.T) {
	url, backend, tokens := launch(t, "sqlite:"+filepath.Join(t.TempDir(), "serve.db"), 0)
	s := &service{t: t, url: url, backend: backend, tokens: tokens}
	a := s.send(auth.Editor, "POST", "/api/v1/clusters", doCluster, "Content-Type", "application/json")
	if a.status != http.StatusCreated {
		t.Fatalf("create cluster: %d %s", a.status, a.body)
	}
	var cluster struct {
		ID              string `json:"id"`
		ResourceVersion string `json:"resource_version"`
	}
	if err := json.Unmarshal(a.body, &cluster); err != nil {
		t.Fatal(err)
	}
	id, rv := cluster.ID, cluster.ResourceVersion
	status := `{"controller_name": "test-controller", "observed_generation": 1, "conditions": []}`
	huge := `{"controller_name": "test-controller", "observed_generation": 1, "conditions": [], "pad": "` + strings.Repeat("x", 1<<20) + `"}`
	hugeCluster := `{"name": "` + strings.Repeat("x", 1<<20) + `"}`
	dupTop := `{"name": "a", "name": "b", "spec": {}}`
	dupDeep := strings.Replace(doCluster, `"region": "fra1",`, `"region": "fra1", "region": "ams3",`, 1)
	dupInList := `{"controller_name": "c", "observed_generation": 1, "conditions": [{"type": "Ready", "status": "True"}, {"type": "A", "type": "B", "status": "True"}]}`
	// Until the last case, no case may change the cluster's version when the server is right,
	// and none that answers as it should before the fix does: the If-Match cases read rv.
	tests := []struct {
		name, method, path, body string
		role                     auth.Role
		headers                  []string
		want                     int
		wantCode                 string
		// wantIn are strings the error's message, details or problems must name.
		wantIn []string
		// wantAllow is the Allow header a 405 must carry.
		wantAllow string
	}{
		{name: "an unknown route is a JSON 404", method: "GET", path: "/api/v1/nowhere", role: auth.Viewer,
			want: 404, wantCode: "NOT_FOUND", wantIn: []string{"/api/v1/nowhere"}},
		{name: "a path with a trailing slash is an unknown route", method: "GET", path: "/api/v1/clusters/", role: auth.Viewer,
			want: 404, wantCode: "NOT_FOUND"},
		{name: "a method the path does not take is a JSON 405 with Allow", method: "PATCH", path: "/api/v1/clusters/" + id, role: auth.Editor,
			want: 405, wantCode: "METHOD_NOT_ALLOWED", wantIn: []string{"PATCH"}, wantAllow: "DELETE, GET, HEAD, PUT"},
		{name: "a DELETE of a list is a JSON 405 with Allow", method: "DELETE", path: "/api/v1/nodepools",
			want: 405, wantCode: "METHOD_NOT_ALLOWED", wantAllow: "GET, HEAD, POST"},
		{name: "a path with /../ is a JSON 400, not a redirect", method: "GET", path: "/api/v1/clusters/../nodepools", role: auth.Viewer,
			want: 400, wantCode: "VALIDATION_ERROR", wantIn: []string{"/api/v1/nodepools"}},
		{name: "a PUT to a path with /./ is a JSON 400", method: "PUT", path: "/api/v1/clusters/./" + id, body: doCluster, role: auth.Editor,
			want: 400, wantCode: "VALIDATION_ERROR", wantIn: []string{"/api/v1/clusters/" + id}},
		{name: "a path with // is a JSON 400, not a redirect", method: "GET", path: "/api/v1//clusters", role: auth.Viewer,
			want: 400, wantCode: "VALIDATION_ERROR", wantIn: []string{"/api/v1/clusters"}},
		{name: "a body naming a key twice is refused, not read as either", method: "POST", path: "/api/v1/clusters",
			body: strings.Replace(doCluster, `"name": "api-fra1"`, `"name": "twice", "name": "again"`, 1), role: auth.Editor,
			want: 400, wantCode: "VALIDATION_ERROR", wantIn: []string{"is written more than once in its object"}},
		{name: "a text/plain body is 415", method: "POST", path: "/api/v1/clusters", body: strings.Replace(doCluster, "api-fra1", "plain", 1), role: auth.Editor,
			headers: []string{"Content-Type", "text/plain"}, want: 415, wantCode: "UNSUPPORTED_MEDIA_TYPE", wantIn: []string{"text/plain"}},
		{name: "a form body is 415", method: "PUT", path: "/api/v1/clusters/" + id, body: doCluster, role: auth.Editor,
			headers: []string{"Content-Type", "application/x-www-form-urlencoded", "If-Match", "999999"}, want: 415, wantCode: "UNSUPPORTED_MEDIA_TYPE"},
		{name: "JSON in another charset is 415", method: "PUT", path: "/api/v1/clusters/" + id + "/status", body: status, role: auth.Controller,
			headers: []string{"Content-Type", "application/json; charset=latin1"}, want: 415, wantCode: "UNSUPPORTED_MEDIA_TYPE"},
		{name: "JSON with charset=utf-8 is taken", method: "PUT", path: "/api/v1/clusters/" + id + "/status", body: status, role: auth.Controller,
			headers: []string{"Content-Type", "application/json; charset=UTF-8"}, want: 200},
		{name: "a key twice at the top is 400 naming it", method: "POST", path: "/api/v1/clusters", body: dupTop, role: auth.Editor,
			want: 400, wantCode: "VALIDATION_ERROR", wantIn: []string{"name"}},
		{name: "a key twice deep in the spec is 400 naming it by its path", method: "PUT", path: "/api/v1/clusters/" + id, body: dupDeep, role: auth.Editor,
			headers: []string{"If-Match", "999999"}, want: 400, wantCode: "VALIDATION_ERROR", wantIn: []string{"spec.platform.digitalocean.region"}},
		{name: "a key twice in a list's object is 400 naming it by its path", method: "PUT", path: "/api/v1/clusters/" + id + "/status", body: dupInList, role: auth.Controller,
			want: 400, wantCode: "VALIDATION_ERROR", wantIn: []string{"conditions[1].type"}},
		{name: "a status body over 1 MiB is 413", method: "PUT", path: "/api/v1/clusters/" + id + "/status", body: huge, role: auth.Controller,
			want: 413, wantCode: "VALIDATION_ERROR", wantIn: []string{"1 MiB"}},
		{name: "a cluster body over 1 MiB is 413", method: "POST", path: "/api/v1/clusters", body: hugeCluster, role: auth.Editor,
			want: 413, wantCode: "VALIDATION_ERROR"},
		{name: "an If-Match list of old versions fails", method: "PUT", path: "/api/v1/clusters/" + id, body: doCluster, role: auth.Editor,
			headers: []string{"If-Match", `"999998", "999999"`}, want: 412, wantCode: "PRECONDITION_FAILED"},
		{name: "a weak ETag of the current version never matches", method: "PUT", path: "/api/v1/clusters/" + id, body: doCluster, role: auth.Editor,
			headers: []string{"If-Match", `W/"` + rv + `"`}, want: 412, wantCode: "PRECONDITION_FAILED"},
		{name: "a weak ETag never matches a delete either", method: "DELETE", path: "/api/v1/clusters/" + id, role: auth.Editor,
			headers: []string{"If-Match", `W/"` + rv + `"`}, want: 412, wantCode: "PRECONDITION_FAILED"},
		{name: "a list naming a weak ETag of an unknown object is not found", method: "DELETE", path: "/api/v1/nodepools/00000000-0000-0000-0000-000000000001", role: auth.Editor,
			headers: []string{"If-Match", `W/"1", "2"`}, want: 404, wantCode: "NOT_FOUND"},
		{name: "an If-Match that is no list of ETags is 400", method: "PUT", path: "/api/v1/clusters/" + id, body: doCluster, role: auth.Editor,
			headers: []string{"If-Match", `"1`}, want: 400, wantCode: "VALIDATION_ERROR", wantIn: []string{"If-Match"}},
		{name: "an unknown list parameter is 400 naming it and the ones the route takes", method: "GET", path: "/api/v1/nodepools?cluster_id=" + id, role: auth.Viewer,
			want: 400, wantCode: "VALIDATION_ERROR", wantIn: []string{"cluster_id", "limit, cursor, offset, status, health"}},
		{name: "a parameter to a route that takes none is 400", method: "GET", path: "/api/v1/clusters/" + id + "?verbose=1", role: auth.Viewer,
			want: 400, wantCode: "VALIDATION_ERROR", wantIn: []string{"verbose", "takes none"}},
		// The answers that go through, in the same run: each check refuses what it should only.
		{name: "an If-Match list naming the current version among old ones matches", method: "PUT", path: "/api/v1/clusters/" + id, body: doCluster, role: auth.Editor,
			headers: []string{"If-Match", `"999999", W/"` + rv + `", "` + rv + `"`, "Content-Type", "application/json"}, want: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := s.send(tt.role, tt.method, tt.path, tt.body, tt.headers...)
			if a.status != tt.want {
				t.Fatalf("%s %s: %d, want %d: %.300s", tt.method, tt.path, a.status, tt.want, a.body)
			}
			if tt.wantCode == "" {
				return
			}
			e := errorBody(t, a)
			if e.Error.Code != tt.wantCode {
				t.Errorf("code %q, want %q", e.Error.Code, tt.wantCode)
			}
			said := e.Error.Message + " " + e.Error.Details
			for _, p := range e.Error.Problems {
				said += " " + p.Field + " " + p.Message
			}
			for _, w := range tt.wantIn {
				if !strings.Contains(said, w) {
					t.Errorf("the error does not name %q: %s", w, a.body)
				}
			}
			if got := a.header.Get("Allow"); got != tt.wantAllow {
				t.Errorf("Allow %q, want %q", got, tt.wantAllow)
			}
		})
	}
}

// documentedResponses are the statuses the OpenAPI document lists for each method and path.
func documentedResponses(t *testing.T) map[string]map[string]map[string]any {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]any `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(api.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]map[string]any{}
	for path, ops := range doc.Paths {
		out[path] = map[string]map[string]any{}
		for method, op := range ops {
			out[path][strings.ToUpper(method)] = op.Responses
		}
	}
	return out
}

func TestTheRouterAndTheOpenAPIDocumentAgreeOnRoutesMethodsAndStatuses(t *testing.T) {
	url, backend, tokens := launch(t, "sqlite:"+filepath.Join(t.TempDir(), "serve.db"), 0)
	s := &service{t: t, url: url, backend: backend, tokens: tokens}
	documented := documentedResponses(t)
	const someID = "00000000-0000-0000-0000-000000000001"
	fill := func(path string) string {
		return strings.NewReplacer("{id}", someID, "{clusterId}", someID).Replace(path)
	}
	methods := []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}
	// Both ways: a method the document lists for a path is routed (the guard answers 401 to a
	// request without a token; a probe or the metrics, which need none, a status it documents), and one it
	// does not list is the router's 405, whose Allow is what the document lists (HEAD with GET,
	// which the router serves as a GET).
	probes := map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}
	for path, ops := range documented {
		var allow []string
		for m := range ops {
			allow = append(allow, m)
			if m == "GET" {
				allow = append(allow, "HEAD")
			}
		}
		slices.Sort(allow)
		for _, m := range methods {
			t.Run(m+" "+path, func(t *testing.T) {
				a := s.send("", m, fill(path), "")
				if slices.Contains(allow, m) {
					if probes[path] {
						if _, ok := ops["GET"][strconv.Itoa(a.status)]; !ok {
							t.Errorf("a documented probe: %d, which the document does not list: %s", a.status, a.body)
						}
						return
					}
					if a.status != http.StatusUnauthorized {
						t.Errorf("a documented route: %d, want 401 (it is not routed): %s", a.status, a.body)
					}
					return
				}
				if a.status != http.StatusMethodNotAllowed {
					t.Fatalf("an undocumented method: %d, want 405: %s", a.status, a.body)
				}
				if got := a.header.Get("Allow"); got != strings.Join(allow, ", ") {
					t.Errorf("Allow %q, want the documented %q", got, strings.Join(allow, ", "))
				}
			})
		}
	}
	// Every route is documented, and every status its request path can be made to write is in
	// its responses.
	allowed := map[auth.Permission]auth.Role{auth.Read: auth.Viewer, auth.Write: auth.Editor, auth.WriteStatus: auth.Controller}
	refused := map[auth.Permission]auth.Role{auth.Write: auth.Viewer, auth.WriteStatus: auth.Editor}
	for _, rt := range api.Routes {
		t.Run(rt.Method+" "+rt.Path+" documents what it answers", func(t *testing.T) {
			responses, ok := documented[rt.Path][rt.Method]
			if !ok {
				t.Fatalf("not in the document")
			}
			path := fill(rt.Path)
			provoked := map[int]string{
				s.send("", rt.Method, path, "").status:                               "without a token",
				s.send(allowed[rt.Permission], rt.Method, path+"?nope=1", "").status: "with an unknown parameter",
				s.send(allowed[rt.Permission], "PATCH", path, "").status:             "with a method it does not take",
			}
			if role, ok := refused[rt.Permission]; ok {
				provoked[s.send(role, rt.Method, path, "").status] = "as a role without " + rt.Permission.String()
			}
			if rt.Method == "POST" || rt.Method == "PUT" {
				provoked[s.send(allowed[rt.Permission], rt.Method, path, "{}", "Content-Type", "text/plain").status] = "with a text/plain body"
				provoked[s.send(allowed[rt.Permission], rt.Method, path, strings.Repeat(" ", 1<<20+1)).status] = "with a body over 1 MiB"
			}
			for status, how := range provoked {
				if _, ok := responses[strconv.Itoa(status)]; !ok {
					t.Errorf("answers %d %s, which the document does not list", status, how)
				}
			}
		})
	}
}
