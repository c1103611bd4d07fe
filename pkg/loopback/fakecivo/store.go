package fakecivo

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
)

// store is the cloud's state, shared by the types that serve each part of the API (clusterAPI,
// poolAPI, Networking, Catalogue, kubeLink, api): each holds a pointer to it and reaches the
// others through it. The server's Mu guards it: the handlers run with it held, and every
// exported method takes it.
type store struct {
	srv  *fakecloud.Server
	opts *Settings

	token  string
	region string
	// tokens are more tokens the API accepts (AcceptToken).
	tokens []string
	// cur is the request being answered; Authorized sets it, under Mu, so that Error (which
	// fakecloud calls without the request) can echo its Authorization header and name what its
	// path was about.
	cur *http.Request

	regions      []civogo.Region
	versions     []civogo.KubernetesVersion
	sizes        []civogo.InstanceSize
	applications []civogo.KubernetesMarketplaceApplication
	held         bool
	seq          int
	// loopback makes new clusters' addresses loopback ones (LoopbackEndpoints).
	loopback bool

	clusters  map[string]*fakeCluster
	pools     map[string]*fakePool // by cluster id + "/" + pool id
	networks  map[string]*fakeNetwork
	firewalls map[string]*fakeFirewall
	// kube ties clusters to real control planes (SetKubeconfig, SetNodes).
	kube kube
	// failUpgrades are the names of the clusters whose upgrades fail (FailUpgrades).
	failUpgrades map[string]bool
	// upgradeLog are the upgrades accepted, in order (Upgrades).
	upgradeLog []UpgradeRecord

	// The parts of the API, each seeing this store.
	clusterAPI clusterAPI
	poolAPI    poolAPI
	networking Networking
	catalogue  Catalogue
	kubeLink   kubeLink
}

// newStore is a store with the parts of the API wired to it.
func newStore(opts *Settings) *store {
	s := &store{opts: opts}
	s.clusterAPI, s.poolAPI, s.networking = clusterAPI{s}, poolAPI{s}, Networking{s}
	s.catalogue, s.kubeLink = Catalogue{s}, kubeLink{s}
	return s
}

func (f *store) locked(change func()) {
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	change()
}

// next is a new number for ordering and ids.
func (f *store) next() int {
	f.seq++
	return f.seq
}

// newID is a fresh id for a kind of thing.
func (f *store) newID(kind string) string {
	return uuidFrom(fmt.Sprintf("fakecivo/%s/%d", kind, f.next()))
}

// fail writes Civo's error body. With EchoAuth the reason echoes the Authorization header.
func (f *store) fail(w http.ResponseWriter, status int, code, reason string) {
	if f.opts.EchoAuth && f.cur != nil {
		reason += " (request had Authorization: " + f.cur.Header.Get("Authorization") + ")"
	}
	writeJSON(w, status, map[string]string{"code": code, "result": "failed", "reason": reason})
}

func (f *store) refuse(q *request, e *apiError) { f.fail(q.w, e.status, e.code, e.reason) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// request is a request being answered, its body decoded into fields for POST and PUT, and the
// region it asks about (the offered region's code).
type request struct {
	w      http.ResponseWriter
	r      *http.Request
	body   []byte
	fields map[string]json.RawMessage
	region string
}

// has tells whether the body has key.
func (q *request) has(key string) bool {
	_, ok := q.fields[key]
	return ok
}

// inRegion tells whether something stored in stored is found by a request about region; ""
// is every region.
func inRegion(stored, region string) bool {
	return stored == "" || region == "" || strings.EqualFold(stored, region)
}

// deepCopy copies v through JSON, the shape Civo's clients see it in, so no map or slice is shared.
func deepCopy[T any](v T) T {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}
