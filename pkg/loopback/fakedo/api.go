package fakedo

import (
	"net/http"
	"slices"
	"strings"
	"time"
)

// api is the DO as fakecloud.Cloud: its own type, so Serve and the others stay out of the methods
// tests see. It routes each request to the part of the API its path names.
type api struct{ *store }

// Authorized tells whether r carries the token as godo sends it, "Authorization: Bearer <token>".
func (a *api) Authorized(r *http.Request) bool {
	token := bearer(r)
	return token != "" && (token == a.token || slices.Contains(a.tokens, token))
}

// Error writes DigitalOcean's error body.
func (a *api) Error(w http.ResponseWriter, status int, message string) {
	id := newUUID()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Request-Id", id)
	writeJSON(w, status, map[string]string{"id": errorID(status), "message": message, "request_id": id})
}

// errorID is the snake_case id DigitalOcean gives an error's status.
func errorID(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "unauthorized"
	case http.StatusNotFound:
		return "not_found"
	case http.StatusUnprocessableEntity:
		return "unprocessable_entity"
	case http.StatusTooManyRequests:
		return "too_many_requests"
	case http.StatusInternalServerError:
		return "server_error"
	}
	return strings.ReplaceAll(strings.ToLower(http.StatusText(status)), " ", "_")
}

// Serve routes a request; it runs with the server's Mu held. The upgrades whose time is up end
// first (settle, upgraderun.go), so that the request sees the cloud as it is now.
func (a *api) Serve(w http.ResponseWriter, r *http.Request, body []byte) {
	if a.hourly != nil && !a.hourly.take(w, bearer(r), time.Now()) {
		a.Error(w, http.StatusTooManyRequests, "API Rate limit exceeded.")
		return
	}
	a.settle()
	defer a.kubeLink.sync()
	seg := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	route := func(method string, parts ...string) bool {
		if r.Method != method || len(seg) != len(parts) {
			return false
		}
		for i, p := range parts {
			if p != "*" && p != seg[i] {
				return false
			}
		}
		return true
	}
	const k8s, clusters, pools = "kubernetes", "clusters", "node_pools"
	switch {
	case route("GET", "v2", k8s, clusters):
		a.clusterAPI.list(w, r)
	case route("POST", "v2", k8s, clusters):
		a.clusterAPI.create(w, body)
	case route("GET", "v2", k8s, clusters, "*"):
		a.clusterAPI.get(w, seg[3])
	case route("PUT", "v2", k8s, clusters, "*"):
		a.clusterAPI.update(w, seg[3], body)
	case route("DELETE", "v2", k8s, clusters, "*"),
		route("DELETE", "v2", k8s, clusters, "*", "destroy_with_associated_resources", "dangerous"):
		a.clusterAPI.delete(w, seg[3])
	case route("GET", "v2", k8s, clusters, "*", "destroy_with_associated_resources"):
		a.clusterAPI.associatedResources(w, seg[3])
	case route("GET", "v2", k8s, clusters, "*", "credentials"):
		a.kubeLink.credentials(w, r, seg[3])
	case route("GET", "v2", k8s, clusters, "*", "kubeconfig"):
		a.kubeLink.kubeconfig(w, r, seg[3])
	case route("POST", "v2", k8s, clusters, "*", "upgrade"):
		a.clusterAPI.upgrade(w, seg[3], body)
	case route("GET", "v2", k8s, clusters, "*", "upgrades"):
		a.clusterAPI.upgrades(w, seg[3])
	case route("POST", "v2", k8s, clusters, "*", "clusterlint"):
		a.clusterlint.run(w, seg[3])
	case route("GET", "v2", k8s, clusters, "*", "clusterlint"):
		a.clusterlint.results(w, r, seg[3])
	case route("GET", "v2", k8s, clusters, "*", pools):
		a.poolAPI.list(w, r, seg[3])
	case route("POST", "v2", k8s, clusters, "*", pools):
		a.poolAPI.create(w, seg[3], body)
	case route("GET", "v2", k8s, clusters, "*", pools, "*"):
		a.poolAPI.get(w, seg[3], seg[5])
	case route("PUT", "v2", k8s, clusters, "*", pools, "*"):
		a.poolAPI.update(w, seg[3], seg[5], body)
	case route("DELETE", "v2", k8s, clusters, "*", pools, "*"):
		a.poolAPI.delete(w, seg[3], seg[5])
	case route("DELETE", "v2", k8s, clusters, "*", pools, "*", "nodes", "*"):
		a.poolAPI.deleteNode(w, r, seg[3], seg[5], seg[7])
	case route("GET", "v2", k8s, "options"):
		a.account.options(w)
	case route("GET", "v2", "sizes"):
		a.account.listSizes(w)
	case route("POST", "v2", k8s, "registry"):
		a.account.integrateRegistry(w, body, true)
	case route("DELETE", "v2", k8s, "registry"):
		a.account.integrateRegistry(w, body, false)
	case route("GET", "v2", "registry"):
		a.account.getRegistry(w)
	case route("GET", "v2", "account"):
		a.account.get(w)
	case route("GET", "v2", "vpcs"):
		a.vpcAPI.list(w, r)
	case route("POST", "v2", "vpcs"):
		a.vpcAPI.create(w, body)
	case route("GET", "v2", "vpcs", "*"):
		a.vpcAPI.get(w, seg[2])
	default:
		a.Error(w, http.StatusNotFound, "The resource you were accessing could not be found.")
	}
}
