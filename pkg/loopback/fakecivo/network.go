package fakecivo

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/civo/civogo"
)

// fakeNetwork is a network and the region it is in.
type fakeNetwork struct {
	n      civogo.Network
	region string
	seq    int
}

// Networking is the cloud's networks and their firewalls (firewall.go), /v2/networks and
// /v2/firewalls. Its exported methods take the server's Mu; the others run with it held.
type Networking struct{ *store }

// Networks are the networks, every region's default one included, oldest first.
func (f Networking) Networks() []civogo.Network {
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	var out []civogo.Network
	for _, n := range f.networkList("") {
		out = append(out, deepCopy(n.n))
	}
	return out
}

// SeedNetwork puts a network with id and label into region, as one made earlier in Civo's
// dashboard: a manifest may name it.
func (f Networking) SeedNetwork(id, label, region string) {
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	f.networks[id] = &fakeNetwork{region: region, seq: f.next(), n: civogo.Network{
		ID: id, Name: label, Label: label, CIDR: "10.20.0.0/22", Status: "Active", IPv4Enabled: true,
		NameserversV4: []string{"8.8.8.8", "1.1.1.1"},
	}}
}

// uuidFrom is a UUID-shaped id derived from seed, so the provider's UUID checks pass and runs
// repeat.
func uuidFrom(seed string) string {
	sum := sha1.Sum([]byte(seed))
	h := hex.EncodeToString(sum[:16])
	return h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-8" + h[17:20] + "-" + h[20:32]
}

// defaultNetwork is region's default network, made the first time it is asked for.
func (f Networking) defaultNetwork(region string) *fakeNetwork {
	id := uuidFrom("fakecivo/default-network/" + strings.ToLower(region))
	if n, ok := f.networks[id]; ok {
		return n
	}
	n := &fakeNetwork{region: region, seq: f.next(), n: civogo.Network{
		ID: id, Name: "Default", Label: "Default", Default: true, CIDR: "192.168.1.0/24", Status: "Active",
		IPv4Enabled: true, NameserversV4: []string{"8.8.8.8", "1.1.1.1"},
	}}
	f.networks[id] = n
	return n
}

// networkIn is the network with id in region.
func (f Networking) networkIn(id, region string) (*fakeNetwork, bool) {
	n, ok := f.networks[id]
	if !ok || !inRegion(n.region, region) {
		return nil, false
	}
	return n, true
}

// networkList are the networks in region ("" for all), oldest first.
func (f Networking) networkList(region string) []*fakeNetwork {
	if region != "" {
		f.defaultNetwork(region)
	}
	var out []*fakeNetwork
	for _, n := range f.networks {
		if inRegion(n.region, region) {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

func (f Networking) serveNetworks(q *request, seg []string) {
	switch {
	case len(seg) == 0 && q.r.Method == http.MethodGet:
		out := []civogo.Network{}
		for _, n := range f.networkList(q.region) {
			out = append(out, n.n)
		}
		writeJSON(q.w, http.StatusOK, out)
	case len(seg) == 0 && q.r.Method == http.MethodPost:
		f.createNetwork(q)
	case len(seg) == 1:
		n, ok := f.networkIn(seg[0], q.region)
		if !ok {
			f.fail(q.w, http.StatusNotFound, "database_network_not_found", "no network "+seg[0]+" in "+q.region)
			return
		}
		switch q.r.Method {
		case http.MethodGet:
			writeJSON(q.w, http.StatusOK, n.n)
		case http.MethodPut:
			f.updateNetwork(q, n)
		case http.MethodDelete:
			f.deleteNetwork(q, n)
		default:
			f.fail(q.w, http.StatusMethodNotAllowed, "method_not_allowed", q.r.Method+" "+q.r.URL.Path)
		}
	default:
		f.fail(q.w, http.StatusNotFound, "not_found", "no such endpoint: "+q.r.URL.Path)
	}
}

func (f Networking) createNetwork(q *request) {
	var cfg civogo.NetworkConfig
	if err := json.Unmarshal(q.body, &cfg); err != nil {
		f.fail(q.w, http.StatusBadRequest, "bad_request", err.Error())
		return
	}
	if strings.TrimSpace(cfg.Label) == "" {
		f.fail(q.w, http.StatusBadRequest, "parameter_label_invalid", "a network needs a label")
		return
	}
	if f.networkLabelTaken(cfg.Label, q.region, "") {
		f.fail(q.w, http.StatusConflict, "database_network_duplicate_name", "a network labelled "+cfg.Label+" already exists in "+q.region)
		return
	}
	cidr := cfg.CIDRv4
	if cidr == "" {
		cidr = fmt.Sprintf("10.%d.0.0/22", 10+len(f.networks)%200)
	} else if _, _, err := net.ParseCIDR(cidr); err != nil {
		f.fail(q.w, http.StatusBadRequest, "database_network_create", "cidr_v4 "+cidr+" is not a CIDR block")
		return
	}
	ns := slices.Clone(cfg.NameserversV4)
	if len(ns) == 0 {
		ns = []string{"8.8.8.8", "1.1.1.1"}
	}
	n := &fakeNetwork{region: q.region, seq: f.next()}
	n.n = civogo.Network{ID: f.newID("network"), Name: cfg.Label, Label: cfg.Label, CIDR: cidr, Status: "Active",
		IPv4Enabled: true, NameserversV4: ns}
	f.networks[n.n.ID] = n
	writeJSON(q.w, http.StatusOK, civogo.NetworkResult{ID: n.n.ID, Label: n.n.Label, Result: civogo.ResultSuccess})
}

func (f Networking) networkLabelTaken(label, region, except string) bool {
	for _, n := range f.networks {
		if n.n.ID != except && inRegion(n.region, region) && n.n.Label == label {
			return true
		}
	}
	return false
}

func (f Networking) updateNetwork(q *request, n *fakeNetwork) {
	var cfg civogo.NetworkConfig
	if err := json.Unmarshal(q.body, &cfg); err != nil {
		f.fail(q.w, http.StatusBadRequest, "bad_request", err.Error())
		return
	}
	// civogo sends every NetworkConfig key; an empty label or a null nameserver list says nothing.
	if cfg.Label != "" && cfg.Label != n.n.Label {
		if f.networkLabelTaken(cfg.Label, q.region, n.n.ID) {
			f.fail(q.w, http.StatusConflict, "database_network_duplicate_name", "a network labelled "+cfg.Label+" already exists in "+q.region)
			return
		}
		n.n.Label, n.n.Name = cfg.Label, cfg.Label
	}
	if cfg.NameserversV4 != nil {
		n.n.NameserversV4 = slices.Clone(cfg.NameserversV4)
	}
	writeJSON(q.w, http.StatusOK, civogo.NetworkResult{ID: n.n.ID, Label: n.n.Label, Result: civogo.ResultSuccess})
}

func (f Networking) deleteNetwork(q *request, n *fakeNetwork) {
	if n.n.Default {
		f.fail(q.w, http.StatusConflict, "network_delete_default", "the default network cannot be deleted")
		return
	}
	for _, fc := range f.clusters {
		if fc.c.NetworkID == n.n.ID {
			f.fail(q.w, http.StatusConflict, "database_network_delete_with_instance", "the network still has cluster "+fc.c.Name+" in it")
			return
		}
	}
	// The network's firewalls go with it: none of them can be in use once no cluster is in it.
	for id, fw := range f.firewalls {
		if fw.fw.NetworkID == n.n.ID {
			delete(f.firewalls, id)
		}
	}
	delete(f.networks, n.n.ID)
	writeJSON(q.w, http.StatusOK, civogo.SimpleResponse{ID: n.n.ID, Result: civogo.ResultSuccess})
}
