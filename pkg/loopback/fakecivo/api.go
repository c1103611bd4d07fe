package fakecivo

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
)

// api is the fake as fakecloud serves it, keeping Authorized, Error and Serve out of the test API:
// it reads the request's region and hands the request to the part of the API its path names.
type api struct{ *store }

// Authorized tells whether r carries the token as civogo sends it, "Authorization: bearer <token>".
func (a *api) Authorized(r *http.Request) bool {
	a.cur = r
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return ok && strings.EqualFold(scheme, "bearer") && (token == a.token || slices.Contains(a.tokens, token))
}

// Error writes Civo's error body for an answer fakecloud gives: a bad token or an injected fault.
func (a *api) Error(w http.ResponseWriter, status int, message string) {
	code := statusCode(status)
	switch status {
	case http.StatusUnauthorized:
		// What Civo answers for a key it does not know; the provider turns it into "the Civo
		// token ... is invalid".
		code = "database_account_not_found"
	case http.StatusNotFound:
		code = a.notFoundCode()
	}
	a.fail(w, status, code, message)
}

// statusCode names an answer's status where the fake knows no code of Civo's for it.
func statusCode(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "bad_request"
	case http.StatusForbidden:
		return "authentication_access_denied"
	case http.StatusConflict:
		return "conflict"
	case http.StatusUnprocessableEntity:
		return "unprocessable_entity"
	case http.StatusTooManyRequests:
		return "too_many_requests"
	case http.StatusInternalServerError:
		return "internal_server_error"
	case http.StatusBadGateway:
		return "bad_gateway"
	case http.StatusServiceUnavailable:
		return "service_unavailable"
	}
	return strings.ReplaceAll(strings.ToLower(http.StatusText(status)), " ", "_")
}

// notFoundCode is the civogo code for a 404 about what the current request's path names, so an
// injected 404 reads as Civo's and the provider's not-found checks (errors.Is) see it.
func (a *api) notFoundCode() string {
	path := ""
	if a.cur != nil {
		path = a.cur.URL.Path
	}
	switch {
	case strings.Contains(path, "/pools"):
		return "database_cluster_pool_not_found"
	case strings.HasPrefix(path, "/v2/kubernetes/clusters"):
		return "database_kubernetes_cluster_not_found"
	case strings.HasPrefix(path, "/v2/firewalls"):
		return "database_firewall_not_found"
	case strings.HasPrefix(path, "/v2/networks"):
		return "database_network_not_found"
	}
	return "not_found"
}

// Serve answers an authorized request; fakecloud holds Mu.
func (a *api) Serve(w http.ResponseWriter, r *http.Request, body []byte) {
	defer a.kubeLink.sync()
	seg := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(seg) < 2 || seg[0] != "v2" {
		a.fail(w, http.StatusNotFound, "not_found", "no such endpoint: "+r.URL.Path)
		return
	}
	seg = seg[1:]

	// The lists that are the same in every region.
	if r.Method == http.MethodGet {
		switch strings.Join(seg, "/") {
		case "regions":
			writeJSON(w, http.StatusOK, a.regions)
			return
		case "sizes":
			writeJSON(w, http.StatusOK, a.sizes)
			return
		case "kubernetes/versions":
			writeJSON(w, http.StatusOK, a.versions)
			return
		case "kubernetes/applications":
			writeJSON(w, http.StatusOK, a.applications)
			return
		}
	}

	region, fields, ok := a.requestRegion(w, r, body)
	if !ok {
		return
	}
	req := &request{w: w, r: r, body: body, fields: fields, region: region}
	switch {
	case seg[0] == "networks":
		a.networking.serveNetworks(req, seg[1:])
	case seg[0] == "firewalls":
		a.networking.serveFirewalls(req, seg[1:])
	case len(seg) >= 2 && seg[0] == "kubernetes" && seg[1] == "clusters":
		a.clusterAPI.serve(req, seg[2:])
	default:
		a.fail(w, http.StatusNotFound, "not_found", "no such endpoint: "+r.URL.Path)
	}
}

// requestRegion reads the region a request asks about: ?region= on GET and DELETE, "region" in a
// POST or PUT body. It must name an offered region, the one the fake was pinned to if any.
func (a *api) requestRegion(w http.ResponseWriter, r *http.Request, body []byte) (string, map[string]json.RawMessage, bool) {
	var name string
	var fields map[string]json.RawMessage
	switch r.Method {
	case http.MethodGet, http.MethodDelete:
		name = r.URL.Query().Get("region")
		if name == "" {
			a.fail(w, http.StatusBadRequest, "region_unavailable", "no ?region= given")
			return "", nil, false
		}
	case http.MethodPost, http.MethodPut:
		if err := json.Unmarshal(body, &fields); err != nil {
			a.fail(w, http.StatusBadRequest, "bad_request", "the body is not a JSON object: "+err.Error())
			return "", nil, false
		}
		if err := json.Unmarshal(fields["region"], &name); err != nil || name == "" {
			a.fail(w, http.StatusBadRequest, "region_unavailable", `no "region" in the body`)
			return "", nil, false
		}
	default:
		a.fail(w, http.StatusMethodNotAllowed, "method_not_allowed", r.Method+" "+r.URL.Path)
		return "", nil, false
	}
	code, ok := a.catalogue.regionCode(name)
	if !ok || a.region != "" && !strings.EqualFold(name, a.region) {
		a.fail(w, http.StatusBadRequest, "region_unavailable", "the region "+name+" is not available to this account")
		return "", nil, false
	}
	return code, fields, true
}
