package deploy

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/readrepair"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
)

// rule is a firewall rule as the module sends it (no id, "__defaults"), or as the provider reads
// it back (with its cloud id, a port range "" for icmp).
func rule(label, protocol, ports, id string) map[string]any {
	r := map[string]any{"label": label, "protocol": protocol, "cidrs": []any{"0.0.0.0/0"}, "action": "allow"}
	if ports != "-" {
		r["portRange"] = ports
	}
	if id == "" {
		r["__defaults"] = []any{}
	} else {
		r["id"] = id
	}
	return r
}

// The module's egress rules, as it sends them and as a refresh reads them back: Civo's rules are
// a Terraform set, which the provider lists in the order of their ids.
var (
	sentEgress = []any{rule("all-tcp", "tcp", "1-65535", ""), rule("all-udp", "udp", "1-65535", ""), rule("all-icmp", "icmp", "-", "")}
	readEgress = []any{rule("all-tcp", "tcp", "1-65535", "r1"), rule("all-icmp", "icmp", "", "r2"), rule("all-udp", "udp", "1-65535", "r3")}
	// What the Terraform bridge records from them, pairing the rules by position: a udp rule
	// without ports, which the provider refuses at the next read.
	pairedEgress = []any{rule("all-tcp", "tcp", "1-65535", ""), rule("all-icmp", "icmp", "", ""), rule("all-udp", "udp", "-", "")}
)

// firewallState is the Civo stack with its firewall's egress rules recorded as inputs and read
// as outputs.
func firewallState(t *testing.T, inputs, outputs []any) stackstate.State {
	t.Helper()
	resources := civoStack("fw-1")
	for i := range resources {
		if resources[i].URN == firewallURN {
			resources[i].Inputs = map[string]any{"name": "dev-fra1", "egressRules": inputs}
			resources[i].Outputs = map[string]any{"name": "dev-fra1", "egressRules": outputs}
		}
	}
	return checkpoint(t, resources)
}

func TestRestoreListInputsPutsBackTheListsARefreshPairedOutOfOrder(t *testing.T) {
	changedUDP := []any{rule("all-tcp", "tcp", "1-65535", "r1"), rule("all-icmp", "icmp", "", "r2"), rule("all-udp", "udp", "53", "r3")}
	tests := []struct {
		name          string
		before, after stackstate.State
		want          []any // the firewall's egress rules recorded in the end; nil: the state is left as it is
	}{
		{name: "the rules the bridge re-paired are put back when the cloud holds them all",
			before: firewallState(t, sentEgress, readEgress), after: firewallState(t, pairedEgress, readEgress), want: sentEgress},
		{name: "rules the cloud changed are left as the refresh recorded them",
			before: firewallState(t, sentEgress, readEgress), after: firewallState(t, pairedEgress, changedUDP)},
		{name: "a rule the cloud no longer holds leaves the refresh's rules",
			before: firewallState(t, sentEgress, readEgress), after: firewallState(t, pairedEgress[:2], readEgress[:2])},
		{name: "rules the refresh recorded as they were are left alone",
			before: firewallState(t, sentEgress, readEgress), after: firewallState(t, sentEgress, readEgress)},
		{name: "a resource made again with another id is left alone",
			before: firewallState(t, sentEgress, readEgress), after: func() stackstate.State {
				st := firewallState(t, pairedEgress, readEgress)
				for i := range st.Deployment.Resources {
					if st.Deployment.Resources[i].URN == firewallURN {
						st.Deployment.Resources[i].ID = "fw-2"
					}
				}
				return checkpoint(t, st.Deployment.Resources)
			}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, changed, err := readrepair.RestoreListInputs(tt.before, tt.after)
			if err != nil {
				t.Fatal(err)
			}
			if changed != (tt.want != nil) {
				t.Fatalf("changed = %v, want %v", changed, tt.want != nil)
			}
			if !changed {
				if string(raw.Deployment) != string(tt.after.Raw.Deployment) {
					t.Errorf("the state was rewritten though nothing changed")
				}
				return
			}
			got := egressInputs(t, raw)
			want := egressInputs(t, firewallState(t, tt.want, nil).Raw)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("egress rules recorded = %v, want %v", got, want)
			}
		})
	}
}

// egressInputs are the firewall's recorded egress rules in a deployment, as JSON reads them.
func egressInputs(t *testing.T, raw apitype.UntypedDeployment) any {
	t.Helper()
	st, err := stackstate.StateOf(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range st.Deployment.Resources {
		if r.URN == firewallURN {
			data, _ := json.Marshal(r.Inputs["egressRules"])
			var out any
			_ = json.Unmarshal(data, &out)
			return out
		}
	}
	t.Fatal("no firewall in the state")
	return nil
}
