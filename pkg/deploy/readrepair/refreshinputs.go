package readrepair

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
)

// A refresh makes the provider plugin work out each resource's inputs again from what it read,
// and the Terraform bridge under the Civo and DigitalOcean plugins does that for a list by
// pairing the recorded inputs' elements with the read elements by position, keeping only the
// fields each recorded element had (pulumi-terraform-bridge v3.101.0, which pulumi-civo v2.4.8
// pins: pkg/tfbridge/schema.go, extractInputs). A Terraform set comes back in its own order, not
// the program's: a Civo firewall's rules are a set (terraform-provider-civo v1.1.4,
// civo/firewall/resource_firewall.go, "egress_rule"), read back in an order of their own (the
// loopback cloud's rule ids put all-icmp second). So the module's all-udp egress rule can be
// paired with the all-icmp one, which has no port range, and is recorded as a udp rule without
// ports. The next read of the stack then fails: the engine
// checks the recorded inputs with the provider (pulumi v3.259.0, pkg/resource/deploy/step.go,
// RefreshStep.Apply), and the provider refuses a tcp or udp rule without ports
// (resource_firewall.go, CustomizeDiff: "ports of egress rules is required if protocol is tcp or
// udp"). Every later up and refresh of the stack would fail the same way.
//
// keepListInputs mends that after a refresh: where the cloud still holds exactly the elements of
// a list of objects the stack recorded before (each recorded element's fields equal in one read
// element of its own), the recorded list is put back in place of the one the bridge made up. An
// up sends the program's inputs anyway; only a refresh leaves the bridge's.
func KeepListInputs(ctx context.Context, s stackstate.Stack, before stackstate.State) error {
	after, err := s.State(ctx)
	if err != nil {
		return errors.Wrap(err, "read the refreshed state to check the inputs the refresh recorded")
	}
	raw, changed, err := RestoreListInputs(before, after)
	if err != nil || !changed {
		return err
	}
	return errors.Wrap(s.Import(ctx, raw), "put back the inputs the refresh recorded out of order")
}

// RestoreListInputs is after's deployment with the lists of before's inputs the refresh
// re-paired put back (see keepListInputs), and whether it changed any. The state is edited as
// JSON, every field it does not touch kept as it is.
func RestoreListInputs(before, after stackstate.State) (apitype.UntypedDeployment, bool, error) {
	recorded := map[string]map[string]any{}
	for _, r := range before.Deployment.Resources {
		if !r.Delete {
			recorded[string(r.URN)+"\x00"+string(r.ID)] = r.Inputs
		}
	}
	var deployment map[string]json.RawMessage
	var resources []map[string]json.RawMessage
	if err := json.Unmarshal(after.Raw.Deployment, &deployment); err != nil {
		return after.Raw, false, errors.Wrap(err, "read the stack's state")
	}
	if err := stackstate.UnmarshalIfAny(deployment["resources"], &resources); err != nil {
		return after.Raw, false, err
	}
	changed := false
	for i, r := range resources {
		var urn, id string
		var inputs, outputs map[string]any
		_ = json.Unmarshal(r["urn"], &urn)
		_ = json.Unmarshal(r["id"], &id)
		old, ok := recorded[urn+"\x00"+id]
		if !ok || stackstate.UnmarshalIfAny(r["inputs"], &inputs) != nil || stackstate.UnmarshalIfAny(r["outputs"], &outputs) != nil {
			continue
		}
		if !putBackLists(old, inputs, outputs) {
			continue
		}
		data, err := json.Marshal(inputs)
		if err != nil {
			return after.Raw, false, errors.Wrap(err, "write the stack's state")
		}
		resources[i]["inputs"], changed = data, true
	}
	if !changed {
		return after.Raw, false, nil
	}
	var err error
	if deployment["resources"], err = json.Marshal(resources); err != nil {
		return after.Raw, false, errors.Wrap(err, "write the stack's state")
	}
	raw := after.Raw
	if raw.Deployment, err = json.Marshal(deployment); err != nil {
		return after.Raw, false, errors.Wrap(err, "write the stack's state")
	}
	return raw, true, nil
}

// putBackLists sets, in inputs, each list of objects of old that differs from inputs' and that
// outputs (what was read) still hold element for element; it says whether it set any.
func putBackLists(old, inputs, outputs map[string]any) bool {
	changed := false
	for name, value := range old {
		list, ok := value.([]any)
		if !ok || len(list) == 0 || !allObjects(list) || reflect.DeepEqual(inputs[name], value) {
			continue
		}
		if _, ok := inputs[name]; !ok || !holds(list, outputs[name]) {
			continue
		}
		inputs[name] = value
		changed = true
	}
	return changed
}

func allObjects(list []any) bool {
	for _, v := range list {
		if _, ok := v.(map[string]any); !ok {
			return false
		}
	}
	return true
}

// holds says whether read, a list, has the elements of want, one for each in any order.
func holds(want []any, read any) bool {
	got, ok := read.([]any)
	if !ok || len(got) != len(want) {
		return false
	}
	used := make([]bool, len(got))
	for _, w := range want {
		found := false
		for j, g := range got {
			if !used[j] && matches(w, g) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// matches says whether read holds want: an object each of want's fields (but the bridge's
// "__defaults" bookkeeping), a list want's elements in any order (Terraform sets of strings, a
// rule's CIDRs, come back sorted), anything else the same value.
func matches(want, read any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := read.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range w {
			if k == "__defaults" {
				continue
			}
			if gv, ok := g[k]; !ok || !matches(v, gv) {
				return false
			}
		}
		return true
	case []any:
		return holds(w, read)
	}
	return reflect.DeepEqual(want, read)
}
