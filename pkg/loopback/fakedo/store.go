package fakedo

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/digitalocean/godo"
)

// store is the cloud's state, shared by the types that serve each part of the API (clusterAPI,
// poolAPI, Account, vpcAPI, clusterlint, kubeLink, api): each holds a pointer to it and reaches
// the others through it. The server's Mu guards it: the handlers run with it held, and every
// exported method takes it.
type store struct {
	srv   *fakecloud.Server
	token string
	// tokens are more tokens the API accepts (AcceptToken).
	tokens []string
	start  time.Time

	versions, sizes, regions []string
	// prices are the sizes' monthly prices GET /v2/sizes answers (SetPrice); DefaultPrice else.
	prices                map[string]float64
	provisionPolls        int
	hold                  bool
	registry              bool
	vpcs                  map[string]godo.VPC // created or seeded; defaults are computed
	order                 []string            // cluster ids, oldest first
	clusters              map[string]*cluster
	nextDroplet, nextIPv4 int
	// lint is what clusterlint finds, by cluster id (SetClusterlint); lintRuns its runs, by id.
	lint     map[string][]godo.ClusterlintDiagnostic
	lintRuns map[string]*lintRun
	lastLint string
	// loopback makes new clusters' API endpoints loopback addresses (LoopbackEndpoints).
	loopback bool
	// kube ties clusters to real control planes (SetKubeconfig, SetNodes).
	kube kube
	// hourly counts each token's requests of the last hour (CountHourly); nil counts none.
	hourly *hourly
	// upgradeTime is how long an accepted upgrade takes (SetUpgradeTime); 0 is at once.
	upgradeTime time.Duration
	// failUpgrades are the names of the clusters whose upgrades fail (FailUpgrades).
	failUpgrades map[string]bool
	// upgradeLog are the upgrades accepted, in order (Upgrades).
	upgradeLog []UpgradeRecord
	// clock, when set, is the time now for the upgrades; the package's tests stop it.
	clock func() time.Time

	// The parts of the API, each seeing this store.
	clusterAPI  clusterAPI
	poolAPI     poolAPI
	account     Account
	vpcAPI      vpcAPI
	clusterlint clusterlint
	kubeLink    kubeLink
}

// newStore is an empty store with the parts of the API wired to it.
func newStore() *store {
	s := &store{}
	s.clusterAPI, s.poolAPI, s.account, s.vpcAPI = clusterAPI{s}, poolAPI{s}, Account{s}, vpcAPI{s}
	s.clusterlint, s.kubeLink = clusterlint{s}, kubeLink{s}
	return s
}

// set runs f with Mu held, the upgrades brought up to date first (lock).
func (d *store) set(f func()) {
	defer d.lock()()
	f()
}

// fail writes an error as DigitalOcean words its shape.
func (d *store) fail(w http.ResponseWriter, status int, format string, args ...any) {
	(&api{d}).Error(w, status, fmt.Sprintf(format, args...))
}

func (d *store) notFound(w http.ResponseWriter) {
	d.fail(w, http.StatusNotFound, "The resource you were accessing could not be found.")
}

// invalid answers 422 with the fake's wording of a validation error.
func (d *store) invalid(w http.ResponseWriter, format string, args ...any) {
	d.fail(w, http.StatusUnprocessableEntity, format, args...)
}

func (d *store) newIPv4() string {
	d.nextIPv4++
	return fmt.Sprintf("203.0.113.%d", d.nextIPv4%254+1)
}

func (d *store) newDropletID() string {
	d.nextDroplet++
	return fmt.Sprint(d.nextDroplet)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
