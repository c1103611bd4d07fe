package fakecivo

import (
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

// fakeFirewall is a firewall, its rules inside, and the region it is in. Its counts are computed
// when it is reported.
type fakeFirewall struct {
	fw     civogo.Firewall
	region string
	seq    int
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

// SeedFirewall puts a firewall with id and name, Civo's default rules on it, on the network with
// networkID in region, as one made earlier: a manifest may name it.
func (f Networking) SeedFirewall(id, name, region, networkID string) {
	f.srv.Mu.Lock()
	defer f.srv.Mu.Unlock()
	f.addFirewall(id, name, region, networkID, defaultRules())
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
