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
	"strconv"
	"strings"

	"github.com/civo/civogo"
)

// fakeNetwork is a network and the region it is in.
type fakeNetwork struct {
	n      civogo.Network
	region string
	seq    int
}

// fakeFirewall is a firewall, its rules inside, and the region it is in. Its counts are computed
// when it is reported.
type fakeFirewall struct {
	fw     civogo.Firewall
	region string
	seq    int
}

// Networking is the cloud's networks and their firewalls, /v2/networks and /v2/firewalls. Its
// exported methods take the server's Mu; the others run with it held.
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

// Firewalls are the firewalls, oldest first, in every region.
func (f Networking) Firewalls() []civogo.Firewall {
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	var out []civogo.Firewall
	for _, fw := range f.firewallList("") {
		out = append(out, deepCopy(f.renderFirewall(fw)))
	}
	return out
}

// Firewall is the firewall with id, and whether it exists.
func (f Networking) Firewall(id string) (civogo.Firewall, bool) {
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	fw, ok := f.firewalls[id]
	if !ok {
		return civogo.Firewall{}, false
	}
	return deepCopy(f.renderFirewall(fw)), true
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

// SeedFirewall puts a firewall with id and name, Civo's default rules on it, on the network with
// networkID in region, as one made earlier: a manifest may name it.
func (f Networking) SeedFirewall(id, name, region, networkID string) {
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	f.addFirewall(id, name, region, networkID, defaultRules())
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

// firewallIn is the firewall with id in region.
func (f Networking) firewallIn(id, region string) (*fakeFirewall, bool) {
	fw, ok := f.firewalls[id]
	if !ok || !inRegion(fw.region, region) {
		return nil, false
	}
	return fw, true
}

// firewallList are the firewalls in region ("" for all), oldest first.
func (f Networking) firewallList(region string) []*fakeFirewall {
	var out []*fakeFirewall
	for _, fw := range f.firewalls {
		if inRegion(fw.region, region) {
			out = append(out, fw)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// renderFirewall is the firewall as Civo reports it, with its counts.
func (f Networking) renderFirewall(fw *fakeFirewall) civogo.Firewall {
	out := fw.fw
	out.Rules = nil
	for _, r := range fw.fw.Rules {
		r.Cidr = slices.Clone(r.Cidr)
		out.Rules = append(out.Rules, r)
	}
	out.RulesCount = len(out.Rules)
	out.ClusterCount = 0
	for _, fc := range f.clusters {
		if fc.c.FirewallID == fw.fw.ID {
			out.ClusterCount++
		}
	}
	return out
}

func (f Networking) firewallNameTaken(name, region, except string) bool {
	for _, fw := range f.firewalls {
		if fw.fw.ID != except && inRegion(fw.region, region) && fw.fw.Name == name {
			return true
		}
	}
	return false
}

func (f Networking) serveFirewalls(q *request, seg []string) {
	if len(seg) == 0 {
		switch q.r.Method {
		case http.MethodGet:
			out := []civogo.Firewall{}
			for _, fw := range f.firewallList(q.region) {
				out = append(out, f.renderFirewall(fw))
			}
			writeJSON(q.w, http.StatusOK, out)
		case http.MethodPost:
			f.createFirewall(q)
		default:
			f.fail(q.w, http.StatusMethodNotAllowed, "method_not_allowed", q.r.Method+" "+q.r.URL.Path)
		}
		return
	}
	fw, ok := f.firewallIn(seg[0], q.region)
	if !ok {
		f.fail(q.w, http.StatusNotFound, "database_firewall_not_found", "no firewall "+seg[0]+" in "+q.region)
		return
	}
	switch {
	case len(seg) == 1 && q.r.Method == http.MethodGet:
		writeJSON(q.w, http.StatusOK, f.renderFirewall(fw))
	case len(seg) == 1 && q.r.Method == http.MethodPut:
		f.renameFirewall(q, fw)
	case len(seg) == 1 && q.r.Method == http.MethodDelete:
		f.deleteFirewall(q, fw)
	case len(seg) == 2 && seg[1] == "rules" && q.r.Method == http.MethodGet:
		writeJSON(q.w, http.StatusOK, append([]civogo.FirewallRule{}, f.renderFirewall(fw).Rules...))
	case len(seg) == 2 && seg[1] == "rules" && q.r.Method == http.MethodPost:
		f.addRule(q, fw)
	case len(seg) == 3 && seg[1] == "rules" && q.r.Method == http.MethodDelete:
		f.deleteRule(q, fw, seg[2])
	case len(seg) <= 3 && (len(seg) == 1 || seg[1] == "rules"):
		f.fail(q.w, http.StatusMethodNotAllowed, "method_not_allowed", q.r.Method+" "+q.r.URL.Path)
	default:
		f.fail(q.w, http.StatusNotFound, "not_found", "no such endpoint: "+q.r.URL.Path)
	}
}

func (f Networking) createFirewall(q *request) {
	var cfg civogo.FirewallConfig
	if err := json.Unmarshal(q.body, &cfg); err != nil {
		f.fail(q.w, http.StatusBadRequest, "bad_request", err.Error())
		return
	}
	if strings.TrimSpace(cfg.Name) == "" {
		f.fail(q.w, http.StatusBadRequest, "parameter_name_invalid", "a firewall needs a name")
		return
	}
	if f.firewallNameTaken(cfg.Name, q.region, "") {
		f.fail(q.w, http.StatusConflict, "database_firewall_duplicate_name", "a firewall named "+cfg.Name+" already exists in "+q.region)
		return
	}
	network := f.defaultNetwork(q.region)
	if cfg.NetworkID != "" {
		n, ok := f.networkIn(cfg.NetworkID, q.region)
		if !ok {
			f.fail(q.w, http.StatusBadRequest, "database_network_not_found", "no network "+cfg.NetworkID+" in "+q.region)
			return
		}
		network = n
	}
	id := f.newID("firewall")
	var rules []civogo.FirewallRule
	if cfg.CreateRules == nil || *cfg.CreateRules {
		rules = defaultRules()
	}
	for _, r := range cfg.Rules {
		rule, reason := normalizeRule(r)
		if reason != "" {
			f.fail(q.w, http.StatusBadRequest, "database_firewall_rules_invalid_params", reason)
			return
		}
		rules = append(rules, rule)
	}
	fw := f.addFirewall(id, cfg.Name, q.region, network.n.ID, rules)
	writeJSON(q.w, http.StatusOK, civogo.FirewallResult{ID: fw.fw.ID, Name: fw.fw.Name, Result: civogo.ResultSuccess})
}

// addFirewall stores a firewall, giving its rules ids.
func (f Networking) addFirewall(id, name, region, networkID string, rules []civogo.FirewallRule) *fakeFirewall {
	fw := &fakeFirewall{region: region, seq: f.next(), fw: civogo.Firewall{ID: id, Name: name, NetworkID: networkID}}
	for _, r := range rules {
		r.ID = f.newID("rule")
		r.FirewallID = id
		fw.fw.Rules = append(fw.fw.Rules, r)
	}
	f.firewalls[id] = fw
	return fw
}

// defaultRules are what a firewall created with create_rules absent or true starts with.
func defaultRules() []civogo.FirewallRule {
	var out []civogo.FirewallRule
	for _, dir := range []string{"ingress", "egress"} {
		out = append(out,
			civogo.FirewallRule{Protocol: "tcp", StartPort: "1", EndPort: "65535", Ports: "1-65535", Cidr: []string{"0.0.0.0/0"}, Direction: dir, Action: "allow", Label: "All TCP ports open"},
			civogo.FirewallRule{Protocol: "udp", StartPort: "1", EndPort: "65535", Ports: "1-65535", Cidr: []string{"0.0.0.0/0"}, Direction: dir, Action: "allow", Label: "All UDP ports open"},
			civogo.FirewallRule{Protocol: "icmp", Cidr: []string{"0.0.0.0/0"}, Direction: dir, Action: "allow", Label: "Ping/traceroute"},
		)
	}
	return out
}

// clusterRules are the rules of the firewall a cluster created without one gets, from its
// firewall_rule ("" or "default": 80, 443, 6443; "all": every TCP port; else a port list).
func clusterRules(spec string) ([]civogo.FirewallRule, string) {
	switch spec {
	case "", "default":
		spec = "80,443,6443"
	case "all":
		spec = "1-65535"
	}
	var out []civogo.FirewallRule
	for _, ports := range strings.Split(spec, ",") {
		r, reason := normalizeRule(civogo.FirewallRule{Protocol: "tcp", Ports: strings.TrimSpace(ports), Direction: "ingress", Action: "allow"})
		if reason != "" {
			return nil, "firewall_rule " + spec + ": " + reason
		}
		out = append(out, r)
	}
	return out, ""
}

// normalizeRule checks a rule as Civo would and fills in what Civo fills in: lower-case protocol,
// allow, 0.0.0.0/0, and ports both as "ports" and as start_port/end_port. It returns why the
// rule is refused, or "".
func normalizeRule(r civogo.FirewallRule) (civogo.FirewallRule, string) {
	r.Protocol = strings.ToLower(r.Protocol)
	if !slices.Contains([]string{"tcp", "udp", "icmp"}, r.Protocol) {
		return r, fmt.Sprintf("protocol %q is not tcp, udp or icmp", r.Protocol)
	}
	if r.Direction != "ingress" && r.Direction != "egress" {
		return r, fmt.Sprintf("direction %q is not ingress or egress", r.Direction)
	}
	if r.Action == "" {
		r.Action = "allow"
	}
	if r.Action != "allow" && r.Action != "deny" {
		return r, fmt.Sprintf("action %q is not allow or deny", r.Action)
	}
	if len(r.Cidr) == 0 {
		r.Cidr = []string{"0.0.0.0/0"}
	}
	for _, c := range r.Cidr {
		if _, _, err := net.ParseCIDR(c); err != nil && net.ParseIP(c) == nil {
			return r, fmt.Sprintf("cidr %q is not an address or a CIDR block", c)
		}
	}
	r.Cidr = slices.Clone(r.Cidr)
	if r.Protocol == "icmp" {
		r.Ports, r.StartPort, r.EndPort = "", "", ""
		return r, ""
	}
	spec := r.Ports
	if spec == "" && r.StartPort != "" {
		spec = r.StartPort
		if r.EndPort != "" && r.EndPort != r.StartPort {
			spec += "-" + r.EndPort
		}
	}
	if spec == "all" {
		spec = "1-65535"
	}
	if spec == "" {
		return r, "a " + r.Protocol + " rule needs ports"
	}
	lo, hi, ok := strings.Cut(spec, "-")
	if !ok {
		hi = lo
	}
	a, errA := strconv.Atoi(strings.TrimSpace(lo))
	b, errB := strconv.Atoi(strings.TrimSpace(hi))
	if errA != nil || errB != nil || a < 1 || b > 65535 || a > b {
		return r, fmt.Sprintf("ports %q are not a port or a range of ports", spec)
	}
	r.StartPort, r.EndPort = strconv.Itoa(a), strconv.Itoa(b)
	r.Ports = r.StartPort
	if a != b {
		r.Ports += "-" + r.EndPort
	}
	return r, ""
}

func (f Networking) renameFirewall(q *request, fw *fakeFirewall) {
	var cfg civogo.FirewallConfig
	if err := json.Unmarshal(q.body, &cfg); err != nil {
		f.fail(q.w, http.StatusBadRequest, "bad_request", err.Error())
		return
	}
	// RenameFirewall sends a whole FirewallConfig; an empty network_id (always sent) says nothing,
	// and a firewall never moves to another network.
	if cfg.Name != "" && cfg.Name != fw.fw.Name {
		if f.firewallNameTaken(cfg.Name, q.region, fw.fw.ID) {
			f.fail(q.w, http.StatusConflict, "database_firewall_duplicate_name", "a firewall named "+cfg.Name+" already exists in "+q.region)
			return
		}
		fw.fw.Name = cfg.Name
	}
	writeJSON(q.w, http.StatusOK, civogo.SimpleResponse{ID: fw.fw.ID, Result: civogo.ResultSuccess})
}

func (f Networking) deleteFirewall(q *request, fw *fakeFirewall) {
	for _, fc := range f.clusters {
		if fc.c.FirewallID == fw.fw.ID {
			f.fail(q.w, http.StatusConflict, "database_firewall_inuse_by_cluster",
				"the firewall cannot be deleted while cluster "+fc.c.Name+" uses it")
			return
		}
	}
	delete(f.firewalls, fw.fw.ID)
	writeJSON(q.w, http.StatusOK, civogo.SimpleResponse{ID: fw.fw.ID, Result: civogo.ResultSuccess})
}

func (f Networking) addRule(q *request, fw *fakeFirewall) {
	var cfg civogo.FirewallRuleConfig
	if err := json.Unmarshal(q.body, &cfg); err != nil {
		f.fail(q.w, http.StatusBadRequest, "bad_request", err.Error())
		return
	}
	if cfg.FirewallID != "" && cfg.FirewallID != fw.fw.ID {
		f.fail(q.w, http.StatusBadRequest, "database_firewall_mismatch", "firewall_id "+cfg.FirewallID+" is not the firewall in the path")
		return
	}
	rule, reason := normalizeRule(civogo.FirewallRule{Protocol: cfg.Protocol, StartPort: cfg.StartPort, EndPort: cfg.EndPort,
		Cidr: cfg.Cidr, Direction: cfg.Direction, Action: cfg.Action, Label: cfg.Label, Ports: cfg.Ports})
	if reason != "" {
		f.fail(q.w, http.StatusBadRequest, "database_firewall_rules_invalid_params", reason)
		return
	}
	rule.ID = f.newID("rule")
	rule.FirewallID = fw.fw.ID
	fw.fw.Rules = append(fw.fw.Rules, rule)
	writeJSON(q.w, http.StatusOK, rule)
}

func (f Networking) deleteRule(q *request, fw *fakeFirewall, id string) {
	i := slices.IndexFunc(fw.fw.Rules, func(r civogo.FirewallRule) bool { return r.ID == id })
	if i < 0 {
		f.fail(q.w, http.StatusNotFound, "database_firewall_rules_find", "firewall "+fw.fw.ID+" has no rule "+id)
		return
	}
	fw.fw.Rules = slices.Delete(fw.fw.Rules, i, i+1)
	writeJSON(q.w, http.StatusOK, civogo.SimpleResponse{ID: id, Result: civogo.ResultSuccess})
}
