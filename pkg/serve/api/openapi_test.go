package api_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/serve/api"
)

// updateOpenAPIDoc rewrites docs/openapi.json from OpenAPI() instead of comparing them.
var updateOpenAPIDoc = flag.Bool("update", false, "rewrite docs/openapi.json from api.OpenAPI()")

// openAPIFile is the document's copy in the repository, relative to this package.
var openAPIFile = filepath.Join("..", "..", "..", "docs", "openapi.json")

// openAPIDocument is OpenAPI() parsed.
func openAPIDocument(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(api.OpenAPI(), &doc); err != nil {
		t.Fatalf("the OpenAPI document is not JSON: %v", err)
	}
	return doc
}

func TestTheOpenAPIDocumentIsOpenAPI31WithTheAPIsTitleAndBearerSecurity(t *testing.T) {
	doc := openAPIDocument(t)
	for _, tc := range []struct {
		path []string
		want any
	}{
		{[]string{"openapi"}, "3.1.0"},
		{[]string{"info", "title"}, "clusterplane serve"},
		{[]string{"info", "version"}, "v1"},
		{[]string{"components", "securitySchemes", "bearer", "type"}, "http"},
		{[]string{"components", "securitySchemes", "bearer", "scheme"}, "bearer"},
	} {
		var got any = doc
		for _, key := range tc.path {
			m, _ := got.(map[string]any)
			got = m[key]
		}
		if got != tc.want {
			t.Errorf("%s = %v, want %v", strings.Join(tc.path, "."), got, tc.want)
		}
	}
}

func TestTheOpenAPIDocumentHasOneOperationPerRouteAndNoOther(t *testing.T) {
	doc := openAPIDocument(t)
	paths, _ := doc["paths"].(map[string]any)
	documented := map[string]map[string]any{}
	for path, item := range paths {
		ops, _ := item.(map[string]any)
		for method, op := range ops {
			o, _ := op.(map[string]any)
			documented[strings.ToUpper(method)+" "+path] = o
		}
	}
	operationIDs := map[string]string{}
	for _, rt := range api.Routes {
		key := rt.Method + " " + rt.Path
		t.Run(key, func(t *testing.T) {
			op, ok := documented[key]
			if !ok {
				t.Fatalf("the route %s is not in the document", key)
			}
			delete(documented, key)
			if op["summary"] != rt.Summary {
				t.Errorf("summary = %v, want %q", op["summary"], rt.Summary)
			}
			if op["x-clusterplane-permission"] != rt.Permission.String() {
				t.Errorf("x-clusterplane-permission = %v, want %q", op["x-clusterplane-permission"], rt.Permission)
			}
			id, _ := op["operationId"].(string)
			if id == "" {
				t.Errorf("no operationId")
			} else if other, dup := operationIDs[id]; dup {
				t.Errorf("operationId %s is also %s's", id, other)
			}
			operationIDs[id] = key
			if responses, _ := op["responses"].(map[string]any); len(responses) == 0 {
				t.Errorf("no responses")
			}
			conditional := rt.Verb == "update" || rt.Verb == "delete"
			if got := hasIfMatch(op); got != conditional {
				t.Errorf("requires If-Match: %v, want %v (op %s)", got, conditional, rt.Verb)
			}
		})
	}
	// The probes and the metrics are documented outside Routes (TestTheProbesAreDocumentedWithoutAToken).
	delete(documented, "GET /healthz")
	delete(documented, "GET /readyz")
	delete(documented, "GET /metrics")
	var extra []string
	for key := range documented {
		extra = append(extra, key)
	}
	sort.Strings(extra)
	for _, key := range extra {
		t.Errorf("the document has %s, which is not in Routes", key)
	}
}

// hasIfMatch reports whether an operation takes the If-Match header.
func hasIfMatch(op map[string]any) bool {
	params, _ := op["parameters"].([]any)
	for _, p := range params {
		if m, _ := p.(map[string]any); m["$ref"] == "#/components/parameters/IfMatch" {
			return true
		}
	}
	return false
}

func TestEveryRefInTheOpenAPIDocumentResolvesToAComponent(t *testing.T) {
	doc := openAPIDocument(t)
	components, _ := doc["components"].(map[string]any)
	refs := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "$ref" {
					refs[s] = true
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	if len(refs) == 0 {
		t.Fatal("the document has no $ref: the walk is broken")
	}
	for r := range refs {
		parts := strings.Split(r, "/")
		if len(parts) != 4 || parts[0] != "#" || parts[1] != "components" {
			t.Errorf("%s is not a reference to a component (#/components/<section>/<name>)", r)
			continue
		}
		section, _ := components[parts[2]].(map[string]any)
		if _, ok := section[parts[3]]; !ok {
			t.Errorf("%s does not resolve: components.%s has no %s", r, parts[2], parts[3])
		}
	}
}

func TestTheOpenAPIDocumentIsTheSameOnEveryCallAndEndsWithANewline(t *testing.T) {
	a, b := api.OpenAPI(), api.OpenAPI()
	if !bytes.Equal(a, b) {
		t.Fatal("OpenAPI() differs between two calls")
	}
	if !bytes.HasSuffix(a, []byte("}\n")) {
		t.Error("the document does not end with a newline")
	}
}

func TestTheOpenAPIDocumentIsFresh(t *testing.T) {
	got := api.OpenAPI()
	if *updateOpenAPIDoc {
		if err := os.WriteFile(openAPIFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(openAPIFile)
	if err != nil {
		t.Fatalf("%v: regenerate it with make openapi (or make protos)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/openapi.json is not what api.OpenAPI() makes (routes or types changed): " +
			"regenerate it with make openapi (or make protos)")
	}
}

func TestEveryOperationListsTheStatusesItsRequestPathCanAnswer(t *testing.T) {
	doc := openAPIDocument(t)
	paths, _ := doc["paths"].(map[string]any)
	// Every route answers these: the query (400), the token, the role, a method its path does
	// not take, the rate and the server.
	every := []string{"400", "401", "403", "405", "429", "500"}
	for _, tc := range []struct {
		name string
		// applies tells whether the statuses are the route's to answer.
		applies  func(rt api.Route) bool
		statuses []string
	}{
		{"every route answers the request path's errors", func(api.Route) bool { return true }, every},
		{"a route with an id in its path answers 404", func(rt api.Route) bool { return strings.Contains(rt.Path, "{") }, []string{"404"}},
		{"a route that takes a body answers 413 and 415", func(rt api.Route) bool { return rt.Method == "POST" || rt.Method == "PUT" }, []string{"413", "415"}},
		{"a conditional write answers 412 and 428", func(rt api.Route) bool { return rt.Verb == "update" || rt.Verb == "delete" }, []string{"412", "428"}},
		{"an update answers 409 for an object being deleted", func(rt api.Route) bool { return rt.Verb == "update" }, []string{"409"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, rt := range api.Routes {
				if !tc.applies(rt) {
					continue
				}
				item, _ := paths[rt.Path].(map[string]any)
				op, _ := item[strings.ToLower(rt.Method)].(map[string]any)
				responses, _ := op["responses"].(map[string]any)
				for _, status := range tc.statuses {
					if _, ok := responses[status]; !ok {
						t.Errorf("%s %s does not list %s", rt.Method, rt.Path, status)
					}
				}
			}
		})
	}
}

// A status report's 400 and 403 say the reasons of their own: the generation's bounds, the name's
// rules, and who may report under which name.
// Promise: api-status-report-refused
func TestTheStatusReportsAnswersSayWhyAReportIsRefused(t *testing.T) {
	doc := openAPIDocument(t)
	paths, _ := doc["paths"].(map[string]any)
	tests := []struct {
		name, status string
		want         []string
	}{
		{"a 400 names the generation's bounds and the name's rules", "400", []string{"observed_generation not from 1 to the object's current generation", "controller_name missing or not printable"}},
		{"a 403 names the reserved name and the token's own", "403", []string{"clusterplane, serve's own workers'", "not the name the controller token was made for", "OIDC or a trusted proxy"}},
	}
	for _, path := range []string{"/api/v1/clusters/{id}/status", "/api/v1/nodepools/{id}/status"} {
		item, _ := paths[path].(map[string]any)
		put, _ := item["put"].(map[string]any)
		responses, _ := put["responses"].(map[string]any)
		for _, tt := range tests {
			t.Run(path+": "+tt.name, func(t *testing.T) {
				r, _ := responses[tt.status].(map[string]any)
				description, _ := r["description"].(string)
				for _, w := range tt.want {
					if !strings.Contains(description, w) {
						t.Errorf("the %s answer %q does not say %q", tt.status, description, w)
					}
				}
			})
		}
	}
}

func TestTheProbesAreDocumentedWithoutAToken(t *testing.T) {
	doc := openAPIDocument(t)
	paths, _ := doc["paths"].(map[string]any)
	for _, tc := range []struct {
		name, path string
		statuses   []string
	}{
		{"liveness answers ok, whatever the database", "/healthz", []string{"200"}},
		{"readiness answers ok, or 503 saying why not", "/readyz", []string{"200", "503"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			item, _ := paths[tc.path].(map[string]any)
			op, ok := item["get"].(map[string]any)
			if !ok {
				t.Fatalf("GET %s is not in the document", tc.path)
			}
			if security, ok := op["security"].([]any); !ok || len(security) != 0 {
				t.Errorf("GET %s security = %v, want [] (no token)", tc.path, op["security"])
			}
			responses, _ := op["responses"].(map[string]any)
			var got []string
			for status := range responses {
				got = append(got, status)
			}
			sort.Strings(got)
			if strings.Join(got, ",") != strings.Join(tc.statuses, ",") {
				t.Errorf("GET %s answers %v, want %v", tc.path, got, tc.statuses)
			}
		})
	}
}
